// The shared part of the bare node:http + pg baselines: the pool, the API's cursor format, JSON answers, the page meta,
// the user summaries of a page, and a server for one GET route of a tenant (X-Tenant-ID taken as the id, no lookup)
// that also answers GET /health for the benchmark to know it is up.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import pg from "pg"

/** The pool of a baseline: DATABASE_URL, DB_POOL_SIZE connections (10, as the API's default). */
export const barePool = (applicationName: string): pg.Pool =>
  new pg.Pool({
    connectionString: process.env.DATABASE_URL,
    max: Number(process.env.DB_POOL_SIZE ?? 10),
    application_name: applicationName
  })

/** The id a cursor carries (base64url JSON of a positive integer), or undefined when it is not one. */
export const decodeCursor = (cursor: string): number | undefined => {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"))
    return Number.isInteger(value) && (value as number) > 0 ? (value as number) : undefined
  } catch {
    return undefined
  }
}

export const encodeCursor = (id: number): string => Buffer.from(JSON.stringify(id), "utf8").toString("base64url")

/** A page's meta as the API writes it: the cursor (after `lastId`) only when there is more. */
export const pageMeta = (perPage: number, more: boolean, lastId: number | undefined) =>
  more && lastId !== undefined
    ? { per_page: perPage, has_more: true, cursor: encodeCursor(lastId) }
    : { per_page: perPage, has_more: false }

export const send = (res: ServerResponse, status: number, body: unknown): void => {
  const text = JSON.stringify(body)
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) })
  res.end(text)
}

const USERS = {
  name: "bare_users",
  text: "SELECT id, first_name, last_name, avatar_url FROM users WHERE tenant_id = $1 AND id = ANY($2::bigint[])"
}

/** The users `ids` (one query), as the API's user summary of each id: "Deleted User" for one that is gone. */
export const userSummaries = async (pool: pg.Pool, tenantId: number, ids: ReadonlyArray<string>) => {
  const rows = ids.length === 0
    ? []
    : (await pool.query<{ id: string; first_name: string; last_name: string; avatar_url: string | null }>({
      ...USERS,
      values: [tenantId, [...new Set(ids)]]
    })).rows
  const byId = new Map(rows.map((u) => [u.id, u]))
  return (id: string) => {
    const user = byId.get(id)
    return {
      id: Number(id),
      first_name: user?.first_name ?? "Deleted",
      last_name: user?.last_name ?? "User",
      avatar_url: user?.avatar_url ?? null
    }
  }
}

/**
 * Listens on PORT for GET `path` with an X-Tenant-ID (anything else: 404), and GET /health; a handler that fails
 * answers 500. SIGTERM closes the pool, then the process.
 */
export const serveTenantGet = (
  pool: pg.Pool,
  path: string,
  handle: (tenantId: number, url: URL, req: IncomingMessage, res: ServerResponse) => Promise<void>
): void => {
  createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost")
    if (url.pathname === "/health") return send(res, 200, { status: "ok" })
    const tenantId = Number(req.headers["x-tenant-id"])
    if (req.method !== "GET" || url.pathname !== path || !Number.isInteger(tenantId)) return send(res, 404, {})
    handle(tenantId, url, req, res).catch(() =>
      send(res, 500, { errors: [{ code: "SERVER_ERROR", message: "query failed" }] })
    )
  }).listen(Number(process.env.PORT), "127.0.0.1")

  process.on("SIGTERM", () => {
    void pool.end().finally(() => process.exit(0))
  })
}

/** The most connections the database server held at once while a run was watched, and its max_connections. */
export interface ConnectionPeak {
  readonly peak: number
  readonly max: number
}

/**
 * Watches the connections of the whole database server (every client: the API's pool and cluster, a baseline's
 * pool, other users) from now until the returned function is called: one connection of its own, one count every
 * 100 ms. A baseline is only honest when this peak stays within max_connections.
 */
export const watchConnections = async (databaseUrl: string): Promise<() => Promise<ConnectionPeak>> => {
  const client = new pg.Client({ connectionString: databaseUrl, application_name: "bench-connections" })
  await client.connect()
  const { rows: [setting] } = await client.query<{ max: number }>(
    "SELECT current_setting('max_connections')::int AS max"
  )
  const count = async () =>
    (await client.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE backend_type = 'client backend'"
    ))
      .rows[0]!.n
  let peak = await count()
  let running = true
  const watching = (async () => {
    while (running) {
      await new Promise((resolve) => setTimeout(resolve, 100))
      peak = Math.max(peak, await count().catch(() => peak))
    }
  })()
  return async () => {
    running = false
    await watching
    await client.end().catch(() => {})
    return { peak, max: setting!.max }
  }
}

/**
 * With DATABASE_URL set: points DATABASE_URL at a new database of its own on that server for this run, and returns
 * the step that drops it again. A write bench must not start on the rows of earlier runs: the API's outbox
 * subscribers would spend the measured run working through the events that earlier runs (and their baselines) left.
 * Without DATABASE_URL the bench's embedded PostgreSQL is new anyway.
 */
export const ownDatabase = async (name: string): Promise<() => Promise<void>> => {
  const server = process.env.DATABASE_URL
  if (!server) return async () => {}
  const database = `${name}_${Date.now().toString(36)}`
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: server })
    await client.connect()
    try {
      await client.query(statement)
    } finally {
      await client.end()
    }
  }
  await admin(`CREATE DATABASE ${database}`)
  const url = new URL(server)
  url.pathname = `/${database}`
  process.env.DATABASE_URL = url.toString()
  return async () => {
    process.env.DATABASE_URL = server
    await admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch((error: unknown) =>
      console.log(`could not drop the bench database ${database}: ${String(error)}`)
    )
  }
}
