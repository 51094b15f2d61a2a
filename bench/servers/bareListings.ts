// Baseline for `npm run bench -- listings`: the public listings list (newest first, with `type`, `category_id`,
// `user_id`, `search` and cursor filters) on a bare node:http + pg server doing the same SQL as the API, with
// prepared statements and hand-written JSON of the same shape. No tenant lookup (X-Tenant-ID is taken as the id).
//
// A bearer token is checked the way the API checks it (decisions D4: credentials sent with a request must be good
// in its community, public reads included): the API's access tokens are opaque random strings, stored as their
// SHA-256, so the check is the hash and one lookup of the token, its session and its user (not expired, not
// revoked, active, approved, of this tenant) — 401 without a match. There is no JWT to verify (jose would check a
// signature the API never makes), so the baseline pays exactly the API's kind of check: one round trip.
import { createHash } from "node:crypto"
import { barePool, decodeCursor, pageMeta, send, serveTenantGet } from "./bareLib.js"

const pool = barePool("bench-bare-listings")

const PATH = "/api/v2/listings"
const PER_PAGE_DEFAULT = 20
const PER_PAGE_MAX = 50

const CALLER = {
  name: "listings_caller",
  text: `
    SELECT u.id FROM auth_sessions s JOIN users u ON u.id = s.user_id
    WHERE s.id = (SELECT session_id FROM access_tokens WHERE token_hash = $1 AND expires_at > now())
      AND s.revoked_at IS NULL AND s.expires_at > now() AND u.deleted_at IS NULL
      AND u.tenant_id = $2 AND u.status = 'active' AND u.is_approved`
}

const likePattern = (search: string) => `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

interface Filters {
  readonly type?: string | undefined
  readonly category?: number | undefined
  readonly user?: number | undefined
  readonly search?: string | undefined
  readonly cursor?: number | undefined
}

/** One prepared statement per shape (which filters are present), as the API has. */
const pageQuery = (f: Filters) => {
  const conditions = ["tenant_id = $1", "deleted_at IS NULL", "status = 'active'"]
  let n = 1
  if (f.type !== undefined) conditions.push(`type = $${++n}`)
  if (f.category !== undefined) conditions.push(`category_id = $${++n}`)
  if (f.user !== undefined) conditions.push(`user_id = $${++n}`)
  if (f.search !== undefined) {
    const pattern = `$${++n}`
    conditions.push(`(title ILIKE ${pattern} OR description ILIKE ${pattern})`)
  }
  if (f.cursor !== undefined) conditions.push(`id < $${++n}`)
  const text = `
    SELECT l.id, l.type, l.title, l.description, l.status, l.hours_estimate, l.location,
           c.id AS category_id, c.name AS category_name, c.slug AS category_slug, l.attributes, l.user_id,
           u.first_name, u.last_name, u.avatar_url, l.created_at, l.updated_at
    FROM (
      SELECT id, type, title, description, status, hours_estimate, location, category_id, attributes, user_id,
             created_at, updated_at
      FROM listings WHERE ${conditions.join(" AND ")}
      ORDER BY id DESC LIMIT $${n + 1}
    ) l
    LEFT JOIN LATERAL (
      SELECT id, name, slug FROM categories WHERE tenant_id = $1 AND id = l.category_id OFFSET 0
    ) c ON true
    LEFT JOIN LATERAL (
      SELECT first_name, last_name, avatar_url FROM users WHERE tenant_id = $1 AND id = l.user_id OFFSET 0
    ) u ON true
    ORDER BY l.id DESC`
  return { name: `listings_page_${createHash("sha1").update(text).digest("hex").slice(0, 12)}`, text }
}

const queries = new Map<string, { name: string; text: string }>()
const queryFor = (f: Filters) => {
  const key = [f.type, f.category, f.user, f.search, f.cursor].map((v) => (v === undefined ? 0 : 1)).join("")
  let query = queries.get(key)
  if (query === undefined) {
    query = pageQuery(f)
    queries.set(key, query)
  }
  return query
}

interface ListingRow {
  id: string
  type: string
  title: string
  description: string
  status: string
  hours_estimate: string | null
  location: string | null
  category_id: string | null
  category_name: string | null
  category_slug: string | null
  attributes: Record<string, unknown>
  user_id: string
  first_name: string | null
  last_name: string | null
  avatar_url: string | null
  created_at: Date
  updated_at: Date
}

const positiveId = (text: string | null) => {
  if (text === null) return undefined
  const n = Number(text)
  return Number.isSafeInteger(n) && n > 0 ? n : Number.NaN
}

const item = (row: ListingRow) => ({
  id: Number(row.id),
  type: row.type,
  title: row.title,
  description: row.description,
  status: row.status,
  hours_estimate: row.hours_estimate === null ? null : Number(row.hours_estimate),
  location: row.location,
  category_id: row.category_id === null ? null : Number(row.category_id),
  category: row.category_id === null
    ? null
    : { id: Number(row.category_id), name: row.category_name, slug: row.category_slug },
  attributes: row.attributes,
  user_id: Number(row.user_id),
  user: {
    id: Number(row.user_id),
    first_name: row.first_name ?? "Deleted",
    last_name: row.last_name ?? "User",
    avatar_url: row.first_name === null ? null : row.avatar_url
  },
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString()
})

const unauthorised = { errors: [{ code: "AUTH_REQUIRED", message: "Authentication required" }] }
const invalid = (field: string) => ({ errors: [{ code: "VALIDATION_ERROR", message: "is not valid", field }] })

serveTenantGet(pool, PATH, async (tenantId, url, req, res) => {
  const authorization = req.headers.authorization
  if (authorization !== undefined) {
    const token = /^Bearer +(\S+) *$/i.exec(authorization)?.[1]
    if (token === undefined) return send(res, 401, unauthorised)
    const hash = createHash("sha256").update(token).digest("hex")
    const { rows } = await pool.query({ ...CALLER, values: [hash, tenantId] })
    if (rows.length === 0) return send(res, 401, unauthorised)
  }
  const perPageText = url.searchParams.get("per_page")
  const perPage = perPageText === null ? PER_PAGE_DEFAULT : Number(perPageText)
  if (!Number.isInteger(perPage) || perPage < 1 || perPage > PER_PAGE_MAX) return send(res, 422, invalid("per_page"))
  const cursorText = url.searchParams.get("cursor")
  const cursor = cursorText === null ? undefined : decodeCursor(cursorText)
  if (cursorText !== null && cursor === undefined) return send(res, 422, invalid("cursor"))
  const type = url.searchParams.get("type") ?? undefined
  if (type !== undefined && type !== "offer" && type !== "request") return send(res, 422, invalid("type"))
  const category = positiveId(url.searchParams.get("category_id"))
  if (Number.isNaN(category)) return send(res, 422, invalid("category_id"))
  const user = positiveId(url.searchParams.get("user_id"))
  if (Number.isNaN(user)) return send(res, 422, invalid("user_id"))
  const search = url.searchParams.get("search")?.trim() || undefined
  const filters: Filters = { type, category, user, search, cursor }
  const values: Array<unknown> = [tenantId]
  for (const value of [type, category, user, search === undefined ? undefined : likePattern(search), cursor]) {
    if (value !== undefined) values.push(value)
  }
  values.push(perPage + 1)
  const { rows } = await pool.query<ListingRow>({ ...queryFor(filters), values })
  const data = rows.slice(0, perPage).map(item)
  return send(res, 200, { data, meta: pageMeta(perPage, rows.length > perPage, data.at(-1)?.id) })
})
