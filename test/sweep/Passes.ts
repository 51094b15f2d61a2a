import type { Actor } from "./Actor.js"
import { fuzzCases, selectCases } from "./Cases.js"
import type { HttpSender, RawRequest, RawResponse } from "./HttpSender.js"
import type { OpenApiModel, Operation } from "./OpenApiModel.js"
import { isPartnerRoute, isTokenRoute, partnerEnv } from "./PartnerCalls.js"
import { bodyHasIds, foreignPathVariants, foreignQuery, isSignInRoute, ordered, pathValuesFor, pool } from "./Paths.js"
import type { Expectation, Recorder } from "./Recorder.js"
import { type CaseEnv, type Change, makePlan, render } from "./Requests.js"
import type { IdSource, ValueContext } from "./Values.js"
import type { World } from "./World.js"

/** The three passes of the sweep over every operation of the document. */

export const FUZZ = "fuzz"
export const FOREIGN_IDS = "foreign-ids"
export const FOREIGN_CREDENTIALS = "foreign-credentials"

/** Who sends a request: a label for the report, the actor whose session it uses (if any), its headers. */
export interface Who {
  readonly label: string
  readonly actor?: Actor
  readonly env: () => CaseEnv
}

export interface SweepContext {
  readonly model: OpenApiModel
  readonly sender: HttpSender
  readonly recorder: Recorder
  readonly world: World
  readonly concurrency: number
  /** Markers of tenant A: no response on tenant B may hold them. */
  readonly markers: ReadonlyArray<string>
  /** A's ids as tenant B is offered them. */
  readonly foreignIds: IdSource
  /** A's ids as A's own admin uses them in the fuzz bodies (users: the spare user first). */
  readonly ownIds: IdSource
  /** A's ids for the fuzz paths: records the admin manages first. */
  readonly ownPathIds: IdSource
  readonly contextFor: (op: Operation, ids: IdSource, overrides?: Record<string, unknown>) => ValueContext
  readonly exchange: (
    pass: string,
    op: Operation,
    name: string,
    who: Who,
    build: (env: CaseEnv) => RawRequest,
    expectation: Expectation
  ) => Promise<RawResponse | undefined>
  readonly log: (line: string) => void
}

/**
 * (b) A's ids on tenant B, as B's admin, a B member and (where the route allows it) nobody: a path parameter that
 * names a known kind of record must be 404 (or 401/403 where the route refuses the role first); a 422 proves nothing
 * and is counted as inconclusive. No response may hold A's marker. Returns the requests on B that accepted A's ids
 * in their body.
 */
export const foreignIdsPass = async (ctx: SweepContext): Promise<ReadonlyArray<string>> => {
  const { world } = ctx
  const accepted: Array<string> = []
  const kinds = [...world.a.ids.keys()]
  const bActors: ReadonlyArray<Who> = [
    { label: "B admin", actor: world.b.admin, env: () => ({ auth: world.b.admin.headers() }) },
    { label: "B member", actor: world.b.member, env: () => ({ auth: world.b.member.headers() }) }
  ]
  const anonymous: Who = { label: "B anonymous", env: () => ({ auth: { "x-tenant-id": String(world.b.tenant.id) } }) }
  const { b: bPartner, basePath } = world.federation
  for (const op of ordered(ctx.model.operations).filter(crossTenant)) {
    const values = ctx.contextFor(op, ctx.foreignIds)
    // Partners call with their key: B's partner key, which names B, with A's ids.
    const actors: ReadonlyArray<Who> = isPartnerRoute(op)
      ? [{ label: "B partner key", env: () => partnerEnv(bPartner.key, op.path, basePath) }]
      : op.auth === "required"
      ? bActors
      : [...bActors, anonymous]
    const jobs = foreignPathVariants(ctx.model, op, ctx.foreignIds, kinds).flatMap((variant) =>
      actors.map((who) => ({ variant, who }))
    )
    await pool(jobs, ctx.concurrency, async ({ variant, who }) => {
      const plan = makePlan(op, values, variant.values)
      const change: Change = { query: foreignQuery(op, plan, ctx.foreignIds) }
      const expectation: Expectation = variant.known
        ? { markers: ctx.markers, statuses: [401, 403, 404], inconclusive: [422] }
        : { markers: ctx.markers }
      const response = await ctx.exchange(
        FOREIGN_IDS,
        op,
        `${variant.label}as ${who.label}`,
        who,
        (env) => render(plan, env, change),
        expectation
      )
      const ok = response !== undefined && response.status >= 200 && response.status < 300
      if (ok && op.method !== "GET" && !variant.known && bodyHasIds(plan)) {
        const body = plan.body?.kind === "json" ? JSON.stringify(plan.body.value) : ""
        accepted.push(`${op.key} as ${who.label}: ${body}`)
      }
    })
  }
  return accepted
}

/**
 * (c) A's credentials on tenant B (A's admin and member tokens, by tenant id and by slug, A's admin cookie session
 * with its CSRF token): 401 AUTH_REQUIRED on every route but the sign-in ones, which ignore a token but must still
 * show nothing of A; A's refresh token and A's admin's password are offered to B's sign-in routes too.
 */
export const foreignCredentialsPass = async (ctx: SweepContext) => {
  const { a, b } = ctx.world
  const foreign: ReadonlyArray<Who> = [
    { label: "A admin token", env: () => ({ auth: a.admin.headers(b.tenant) }) },
    { label: "A member token", env: () => ({ auth: a.member.headers(b.tenant) }) },
    {
      label: "A admin token, B by slug",
      env: () => ({ auth: { "x-tenant-slug": b.tenant.slug, authorization: `Bearer ${a.admin.session.access}` } })
    },
    {
      label: "A admin cookie session",
      env: () => ({
        auth: {
          "x-tenant-id": String(b.tenant.id),
          cookie: a.adminCookie.cookie ?? "",
          ...(a.adminCookie.csrf === undefined ? {} : { "x-csrf-token": a.adminCookie.csrf })
        }
      })
    }
  ]
  const anonymous: Who = { label: "B anonymous", env: () => ({ auth: { "x-tenant-id": String(b.tenant.id) } }) }
  for (const op of ordered(ctx.model.operations).filter(crossTenant)) {
    const values = ctx.contextFor(op, ctx.foreignIds, { refresh_token: a.foreignRefresh.refresh })
    const plan = makePlan(op, values, pathValuesFor(ctx.model, op, ctx.foreignIds, values))
    if (isPartnerRoute(op)) {
      await foreignPartnerCredentials(
        ctx,
        op,
        (who, expectation) =>
          ctx.exchange(FOREIGN_CREDENTIALS, op, `as ${who.label}`, who, (env) => render(plan, env), expectation)
      )
      continue
    }
    const signIn = isSignInRoute(op)
    const expectation: Expectation = signIn
      ? { markers: ctx.markers }
      : { markers: ctx.markers, statuses: [401], codes: ["AUTH_REQUIRED"] }
    await pool(foreign, ctx.concurrency, async (who) => {
      await ctx.exchange(FOREIGN_CREDENTIALS, op, `as ${who.label}`, who, (env) => render(plan, env), expectation)
    })
    if (signIn && /login$/.test(op.path)) {
      // The request carries A's e-mail (so the marker search skips it): a 401 is what shows B does not know them.
      await ctx.exchange(
        FOREIGN_CREDENTIALS,
        op,
        "A admin's e-mail and password on B",
        anonymous,
        (env) => render(plan, env, { json: { value: { email: a.admin.email, password: a.admin.password } } }),
        { markers: ctx.markers, statuses: [401] }
      )
    }
  }
}

/** Operations the cross-tenant passes apply to: those with a tenant, and the partners' routes (the key's tenant). */
export const crossTenant = (op: Operation) => op.tenant || isPartnerRoute(op)

/**
 * (c) on a partners' route: A's partner key with a tenant header naming B (by id and by slug) is 403
 * `TENANT_MISMATCH` (the key names A; decisions D13a), except on the OAuth token route, which reads no tenant header
 * and answers a token of A's (no marker of A may show either way); A's admin's session token is no partner
 * credential (401).
 */
const foreignPartnerCredentials = async (
  ctx: SweepContext,
  op: Operation,
  send: (who: Who, expectation: Expectation) => Promise<unknown>
) => {
  const { a, b, federation } = ctx.world
  const key = federation.a.key
  // Routes that take no credential (Komunitin's currency and account reads, Credit Commons' header-checked node,
  // decisions D16) ignore the key and the session: they must only show nothing of A.
  const public_ = op.auth === "none"
  const mismatch: Expectation = public_
    ? { markers: ctx.markers }
    : isTokenRoute(op.path)
    ? { markers: ctx.markers, statuses: [200, 403], codes: ["TENANT_MISMATCH"] }
    : { markers: ctx.markers, statuses: [403], codes: ["TENANT_MISMATCH"] }
  const whos: ReadonlyArray<readonly [Who, Expectation]> = [
    [{
      label: "A partner key, B by id",
      env: () => partnerEnv(key, op.path, federation.basePath, { "x-tenant-id": String(b.tenant.id) })
    }, mismatch],
    [{
      label: "A partner key, B by slug",
      env: () => partnerEnv(key, op.path, federation.basePath, { "x-tenant-slug": b.tenant.slug })
    }, mismatch],
    [
      { label: "A admin token", env: () => ({ auth: a.admin.headers(b.tenant) }) },
      public_ ? mismatch : {
        markers: ctx.markers,
        statuses: [401]
      }
    ]
  ]
  await pool(whos, ctx.concurrency, ([who, expectation]) => send(who, expectation).then(() => undefined))
}

/**
 * (a) The fuzz on tenant A's own records, as A's admin (the super-admin where the admin's baseline is refused):
 * every case of every operation, or a deterministic sample of `casesPerOperation`. Returns the baseline's status
 * per operation (how deep valid-looking input gets).
 */
export const fuzzPass = async (
  ctx: SweepContext,
  options: { readonly casesPerOperation: number | undefined; readonly seed: string }
): Promise<ReadonlyMap<string, number>> => {
  const { a, superAdmin } = ctx.world
  const baselines = new Map<string, number>()
  const admin: Who = { label: "A admin", actor: a.admin, env: () => ({ auth: a.admin.headers() }) }
  const superInA: Who = { label: "super-admin", actor: superAdmin, env: () => ({ auth: superAdmin.headers(a.tenant) }) }
  const none: Who = { label: "no credentials", env: () => ({ auth: {} }) }
  const expectation = (mustRefuse: boolean): Expectation => ({ mustRefuse, ownMarkers: ctx.markers })
  const { a: aPartner, basePath } = ctx.world.federation
  // Partners' writes go to a member who stays opted in and active (the fuzz may ban the spare user first).
  const partnerValues = {
    recipient_id: a.member.userId,
    member_id: a.member.userId
  }
  const ops = ordered(ctx.model.operations)
  for (const [index, op] of ops.entries()) {
    const partner = isPartnerRoute(op)
    const values = ctx.contextFor(op, ctx.ownIds, partner ? partnerValues : {})
    const plan = makePlan(op, values, pathValuesFor(ctx.model, op, ctx.ownPathIds, values))
    const all = fuzzCases(plan, values)
    const cases = options.casesPerOperation === undefined
      ? all
      : selectCases(all, options.casesPerOperation, options.seed, op.key)
    let who: Who = partner
      ? { label: "A partner key", env: () => partnerEnv(aPartner.key, op.path, basePath) }
      : op.tenant || op.auth !== "none"
      ? admin
      : none
    const first = await ctx.exchange(FUZZ, op, cases[0]!.name, who, (env) => render(plan, env), expectation(false))
    baselines.set(op.key, first?.status ?? 0)
    if (first?.status === 403 && who === admin) who = superInA
    await pool(cases.slice(1), ctx.concurrency, async (c) => {
      await ctx.exchange(FUZZ, op, c.name, who, (env) => render(plan, env, c.change), expectation(c.mustRefuse))
    })
    if (options.casesPerOperation === undefined && (index + 1) % 10 === 0) {
      ctx.log(`  fuzz: ${index + 1}/${ops.length} operations, ${ctx.recorder.counts.requests} requests`)
    }
  }
  return baselines
}
