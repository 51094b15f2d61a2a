// Set-up shared by the benchmarks: the servers they measure (the timebank API and the bare baselines of
// bench/servers/), the API calls that make a tenant to measure in, and the scenes that put these together.
import { randomBytes, randomUUID } from "node:crypto"
import { chmodSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { setTimeout as sleep } from "node:timers/promises"
import pg from "pg"
import { apiStartFlags } from "../apps/api/src/startFlags.js"
import { type Client, expectStatus, httpClient } from "./lib.js"
import { type Child, type Database, freePort, startDatabase, startNode, stopChild, waitForOk } from "./processes.js"

/** A server the benchmark started: its process, where it answers, and how to stop it. */
export interface Server {
  readonly child: Child
  readonly port: number
  /** `http://127.0.0.1:PORT` */
  readonly base: string
  readonly stop: () => Promise<void>
}

/** Starts `node ARGS` on a free port (PORT) and waits until `readyPath` answers 200; stops it if it never does. */
const startServer = async (
  name: string,
  args: ReadonlyArray<string>,
  env: Record<string, string>,
  readyPath: string,
  cleanUp: () => void = () => {}
): Promise<Server> => {
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  const child = startNode(name, args, { PORT: String(port), ...env })
  const stop = async () => {
    await stopChild(child)
    cleanUp()
  }
  try {
    await waitForOk(child, `${base}${readyPath}`)
  } catch (error) {
    await stop()
    throw error
  }
  return { child, port, base, stop }
}

export interface Api extends Server {
  /** The bootstrap super-admin the API creates as it starts (BOOTSTRAP_SUPER_ADMIN_*). */
  readonly superAdmin: { readonly email: string; readonly password: string }
}

export interface ApiOptions {
  /** Environment added last (e.g. TRUST_PROXY, DATA_DIR). */
  readonly env?: Record<string, string>
  /** Seed the demo community, as the API does by default (SEED_DEMO); off unless asked. */
  readonly seedDemo?: boolean
}

/**
 * Starts the timebank API (apps/api/src/main.ts) with a bootstrap super-admin on `database` and waits for its health
 * route, with the node flags `npm start` gives it. Without a database, the API runs its own embedded PostgreSQL in a
 * temp DATA_DIR (removed by `stop`).
 * BENCH_API_NODE_FLAGS: extra node flags for the API, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" to see where its
 * time goes (not allowed in NODE_OPTIONS). REDIS_URL is passed on when set.
 */
export const startApi = async (
  database: { readonly url: string } | undefined,
  options: ApiOptions = {}
): Promise<Api> => {
  const superAdmin = { email: `super-${randomBytes(4).toString("hex")}@bench.test`, password: randomUUID() }
  const nodeFlags = (process.env.BENCH_API_NODE_FLAGS ?? "").split(" ").filter((f) => f !== "")
  let storage: Record<string, string>
  let dataDir: string | undefined
  if (database === undefined) {
    dataDir = mkdtempSync(join(tmpdir(), "timebank-bench-"))
    // Embedded PostgreSQL runs as the `postgres` user when we are root; it must be able to enter the directory.
    chmodSync(dataDir, 0o755)
    storage = { DATA_DIR: dataDir, EMBEDDED_DB_PORT: String(await freePort()) }
  } else {
    storage = { DATABASE_URL: database.url }
  }
  const server = await startServer(
    "timebank API",
    [...apiStartFlags(), ...nodeFlags, "--import", "tsx", "apps/api/src/main.ts"],
    {
      HOST: "127.0.0.1",
      LOG_LEVEL: "WARN",
      ...storage,
      ...(options.seedDemo ? {} : { SEED_DEMO: "false" }),
      BOOTSTRAP_SUPER_ADMIN_EMAIL: superAdmin.email,
      BOOTSTRAP_SUPER_ADMIN_PASSWORD: superAdmin.password,
      ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
      ...options.env
    },
    "/api/v2/health",
    () => {
      if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true })
    }
  )
  return { ...server, superAdmin }
}

/**
 * Starts a bare baseline server (a script of bench/servers/, given from the repository root) with `env` on a free
 * port and waits until `readyPath` answers 200.
 */
export const startBaseline = (
  script: string,
  env: Record<string, string> = {},
  options: { readonly name?: string; readonly readyPath?: string } = {}
): Promise<Server> =>
  startServer(options.name ?? "bare node:http + pg", ["--import", "tsx", script], env, options.readyPath ?? "/health")

/** Signs in over the API; `ip` is the X-Forwarded-For address (login is limited per client address). */
export const login = async (
  client: Client,
  tenant: Record<string, string>,
  email: string,
  password: string,
  ip: string
): Promise<{ readonly token: string; readonly userId: number }> => {
  const body = expectStatus(
    `login ${email}`,
    await client.send("POST", "/api/v2/auth/login", {
      headers: { ...tenant, "x-forwarded-for": ip },
      json: { email, password }
    }),
    200
  ) as { access_token: string; user: { id: number } }
  return { token: body.access_token, userId: body.user.id }
}

/** The bootstrap super-admin's token; it is created while the server already answers, so this tries a few times. */
export const superAdminToken = async (client: Client, email: string, password: string): Promise<string> => {
  for (let attempt = 1;; attempt++) {
    try {
      return (await login(client, { "x-tenant-slug": "platform" }, email, password, `10.9.9.${attempt}`)).token
    } catch (error) {
      if (attempt >= 8) throw error
      await sleep(500)
    }
  }
}

export interface BenchTenant {
  readonly id: number
  /** Selects the tenant on a request: X-Tenant-ID. */
  readonly headers: Record<string, string>
  /** Its first admin, who can sign in. */
  readonly admin: { readonly email: string; readonly password: string }
}

/**
 * A tenant made through the super-admin API (POST /api/v2/admin/super/tenants), with a first admin (Bench Admin,
 * admin@SLUG.bench.test, a random password, unless `admin` says otherwise).
 */
export const createTenant = async (
  client: Client,
  superToken: string,
  slug: string,
  admin: { readonly email?: string; readonly first_name?: string; readonly last_name?: string } = {}
): Promise<BenchTenant> => {
  const credentials = { email: admin.email ?? `admin@${slug}.bench.test`, password: randomBytes(12).toString("hex") }
  const created = expectStatus(
    `create tenant ${slug}`,
    await client.send("POST", "/api/v2/admin/super/tenants", {
      headers: { "x-tenant-slug": "platform", authorization: `Bearer ${superToken}` },
      json: {
        slug,
        name: `Bench ${slug}`,
        admin: { ...credentials, first_name: admin.first_name ?? "Bench", last_name: admin.last_name ?? "Admin" }
      }
    }),
    201
  ) as { data: { id: number } }
  return { id: created.data.id, headers: { "x-tenant-id": String(created.data.id) }, admin: credentials }
}

/** What a benchmark runs in: a database and our API on it, a client of the API, a pool and the super-admin's token. */
export interface Scene {
  readonly database: Database
  readonly api: Api
  /** A keep-alive client of the API. */
  readonly client: Client
  /** Connections to the database, for the set-up's SQL, the checks and the SQL baselines. */
  readonly pool: pg.Pool
  /** The bootstrap super-admin's token. */
  readonly superToken: string
  /** When the API answered, as Date.now(). */
  readonly apiUp: number
  /** When the servers answered, as Date.now(): the set-up's clock starts there (the super-admin login included). */
  readonly setupStart: number
  /** Closes the client and the pool, stops the servers (those stopped already stay so), then the database. */
  readonly close: () => Promise<void>
}

export interface SceneOptions {
  readonly api?: ApiOptions
  /** The client's sockets. */
  readonly sockets: number
  readonly pool: { readonly max: number; readonly application_name: string }
}

/**
 * Starts the database and the API (then `more`, e.g. a baseline, once the API has migrated the database), opens the
 * client and the pool, and signs the super-admin in. Whatever was started is stopped again if a step fails.
 */
const openScene = async <A extends object>(
  options: SceneOptions,
  more: (database: Database, defer: (step: () => Promise<unknown>) => void) => Promise<A>
): Promise<Scene & A> => {
  const opened: Array<() => Promise<unknown>> = []
  const defer = (step: () => Promise<unknown>) => opened.push(step)
  const close = async () => {
    for (const step of opened.splice(0).reverse()) await step()
  }
  try {
    const database = await startDatabase()
    defer(() => database.stop())
    const api = await startApi(database, options.api)
    defer(() => api.stop())
    const apiUp = Date.now()
    const extra = await more(database, defer)
    const setupStart = Date.now()
    const client = httpClient(api.port, options.sockets)
    const pool = new pg.Pool({ connectionString: database.url, ...options.pool })
    defer(async () => {
      client.close()
      // pool.end() does not wait for its connections to close, so the database may stop under some: expected now.
      pool.on("error", () => {})
      await pool.end().catch(() => {})
    })
    const superToken = await superAdminToken(client, api.superAdmin.email, api.superAdmin.password)
    return { ...extra, database, api, client, pool, superToken, apiUp, setupStart, close }
  } catch (error) {
    await close()
    throw error
  }
}

export const startScene = (options: SceneOptions): Promise<Scene> => openScene(options, async () => ({}))

/** A read benchmark's scene: our API and a bare baseline on one database, clients of both, and a fresh tenant. */
export interface ReadScene extends Scene {
  readonly baseline: Server
  /** A keep-alive client (8 sockets, as the API's) of the baseline. */
  readonly baselineClient: Client
  readonly tenant: BenchTenant
}

/**
 * The scene of a read benchmark: the API (`api` options, a client of 8 sockets, a pool of 4), the baseline `script`
 * (with DATABASE_URL) and a tenant SLUG-xxxxxx made through the super-admin API.
 */
export const readScene = async (script: string, slug: string, api: ApiOptions = {}): Promise<ReadScene> => {
  const scene = await openScene(
    { api, sockets: 8, pool: { max: 4, application_name: "bench-setup" } },
    async (database, defer) => {
      const baseline = await startBaseline(script, { DATABASE_URL: database.url })
      defer(() => baseline.stop())
      const baselineClient = httpClient(baseline.port, 8)
      defer(async () => baselineClient.close())
      return { baseline, baselineClient }
    }
  )
  try {
    const tenant = await createTenant(scene.client, scene.superToken, `${slug}-${randomBytes(3).toString("hex")}`)
    return { ...scene, tenant }
  } catch (error) {
    await scene.close()
    throw error
  }
}
