import type { HttpSender } from "./HttpSender.js"

/**
 * Someone who sends requests: a user of a tenant with a few independent sessions (logins). The sweep sends requests
 * that end sessions (logout, password changes, foreign-token probes of a defective server): when the current one
 * stops working, the actor moves to a spare one (or refreshes, or logs in again) and the request is retried.
 */

export interface TenantRef {
  readonly id: number
  readonly slug: string
}

export interface Session {
  readonly access: string
  readonly refresh: string
  /** `name=value` pairs for a Cookie header, when logged in with `remember: "cookie"`. */
  readonly cookie?: string
  readonly csrf?: string
}

interface TokenBody {
  readonly access_token?: unknown
  readonly refresh_token?: unknown
  readonly user?: { readonly id?: unknown; readonly tenant_id?: unknown }
}

const LOGIN = "/api/v2/auth/login"
const REFRESH = "/api/v2/auth/refresh"
const CSRF = "/api/v2/csrf-token"

/** `name=value` of every Set-Cookie header. */
export const cookiesOf = (setCookie: string | ReadonlyArray<string> | undefined): string =>
  (typeof setCookie === "string" ? [setCookie] : setCookie ?? []).map((c) => c.split(";")[0]!.trim()).join("; ")

export class Actor {
  private readonly sessions: Array<Session> = []
  private current = 0
  /** Bumped whenever the current session changes, so that concurrent failures renew only once. */
  generation = 0
  userId = 0
  renewals = 0
  readonly failedRenewals: Array<string> = []

  constructor(
    readonly label: string,
    private readonly sender: HttpSender,
    public tenant: TenantRef,
    readonly email: string,
    readonly password: string
  ) {}

  /** Logs in `count` times (each login is its own token family). */
  async signIn(count = 1): Promise<this> {
    for (let i = 0; i < count; i++) this.sessions.push(await this.login())
    return this
  }

  async login(extra: Record<string, unknown> = {}): Promise<Session> {
    const res = await this.sender.json("POST", LOGIN, { "x-tenant-slug": this.tenant.slug }, {
      email: this.email,
      password: this.password,
      ...extra
    })
    const body = res.body as TokenBody | undefined
    if (res.status !== 200 || typeof body?.access_token !== "string" || typeof body.refresh_token !== "string") {
      throw new Error(`${this.label}: login failed: ${res.status} ${res.text.slice(0, 300)}`)
    }
    if (typeof body.user?.id === "number") this.userId = body.user.id
    if (typeof body.user?.tenant_id === "number" && this.tenant.id === 0) {
      this.tenant = { ...this.tenant, id: body.user.tenant_id }
    }
    return { access: body.access_token, refresh: body.refresh_token, cookie: cookiesOf(res.headers["set-cookie"]) }
  }

  /** A cookie session with its CSRF token (cookie and header), for requests that authenticate by cookie. */
  async cookieSession(): Promise<Session> {
    const session = await this.login({ remember: "cookie" })
    const csrf = await this.sender.json("GET", CSRF, {
      "x-tenant-id": String(this.tenant.id),
      cookie: session.cookie ?? ""
    })
    const token = (csrf.body as { data?: { csrf_token?: unknown } } | undefined)?.data?.csrf_token
    const cookie = [session.cookie, cookiesOf(csrf.headers["set-cookie"])].filter((c) => c !== undefined && c !== "")
      .join("; ")
    return { ...session, cookie, ...(typeof token === "string" ? { csrf: token } : {}) }
  }

  get session(): Session {
    const session = this.sessions[this.current]
    if (session === undefined) throw new Error(`${this.label} has no session`)
    return session
  }

  /** Tenant and bearer headers of this actor, addressed to `tenant` (its own by default). */
  headers(tenant: TenantRef = this.tenant): Record<string, string> {
    return { "x-tenant-id": String(tenant.id), authorization: `Bearer ${this.session.access}` }
  }

  /** The current session stopped working: the next spare one, else a refreshed one, else a new login. */
  async renew(seenGeneration: number): Promise<void> {
    if (seenGeneration !== this.generation) return
    this.generation++
    this.renewals++
    if (this.current + 1 < this.sessions.length) {
      this.current++
      return
    }
    try {
      const refreshed = await this.sender.json("POST", REFRESH, { "x-tenant-slug": this.tenant.slug }, {
        refresh_token: this.session.refresh
      })
      const body = refreshed.body as TokenBody | undefined
      if (
        refreshed.status === 200 && typeof body?.access_token === "string" && typeof body.refresh_token === "string"
      ) {
        this.sessions.push({ access: body.access_token, refresh: body.refresh_token })
      } else {
        this.sessions.push(await this.login())
      }
      this.current = this.sessions.length - 1
    } catch (error) {
      // No new session (a login refused by a rate limit): the requests that follow show it as 401s.
      this.failedRenewals.push(error instanceof Error ? error.message : String(error))
    }
  }
}
