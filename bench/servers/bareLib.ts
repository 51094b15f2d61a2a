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
