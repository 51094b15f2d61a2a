// Baseline for `npm run bench -- directory`: the organisation directory on a bare node:http + pg server doing the
// same SQL as the API (one statement per page: the page with its owners and aggregates as correlated subqueries),
// with prepared statements and hand-written JSON of the same shape. No tenant lookup (X-Tenant-ID is taken as the
// id), no auth, no rate limit.
import { barePool, decodeCursor, pageMeta, send, serveTenantGet } from "./bareLib.js"

const pool = barePool("bench-bare-directory")

const PATH = "/api/v2/volunteering/organisations"
const PER_PAGE_DEFAULT = 20
const PER_PAGE_MAX = 50

const likePattern = (search: string) => `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

/** One prepared statement per shape, so each keeps the plan that fits it (index range on id, or not). */
const pageQuery = (cursor: boolean, search: boolean) => {
  const conditions = ["tenant_id = $1", "status IN ('active', 'approved')"]
  let n = 1
  if (cursor) conditions.push(`id < $${++n}`)
  if (search) {
    const pattern = `$${++n}`
    conditions.push(`(name ILIKE ${pattern} OR description ILIKE ${pattern})`)
  }
  return {
    name: `directory_page_${cursor}_${search}`,
    text: `
      SELECT o.id, o.name, o.description, o.logo_url, o.website, o.contact_email, o.location, o.created_at, o.user_id,
             u.first_name, u.last_name, u.avatar_url,
             (SELECT count(*) FROM vol_opportunities p
               WHERE p.tenant_id = $1 AND p.organisation_id = o.id AND p.status = 'open')::int AS opportunity_count,
             (SELECT count(DISTINCT a.user_id) FROM vol_applications a
               WHERE a.tenant_id = $1 AND a.organisation_id = o.id AND a.status = 'approved')::int AS volunteer_count,
             (SELECT coalesce(sum(h.hours), 0) FROM vol_hours h
               WHERE h.tenant_id = $1 AND h.organisation_id = o.id AND h.status = 'approved') AS total_hours,
             (SELECT avg(r.rating) FROM reviews r
               WHERE r.tenant_id = $1 AND r.target_type = 'organization' AND r.target_id = o.id
                 AND r.approved AND NOT r.is_hidden) AS average_rating
      FROM (
        SELECT id, user_id, name, description, logo_url, website, contact_email, location, created_at
        FROM vol_organisations WHERE ${conditions.join(" AND ")}
        ORDER BY id DESC LIMIT $${n + 1}
      ) o
      LEFT JOIN LATERAL (
        SELECT first_name, last_name, avatar_url FROM users WHERE tenant_id = $1 AND id = o.user_id OFFSET 0
      ) u ON true
      ORDER BY o.id DESC`
  }
}

const QUERIES = [false, true].map((cursor) => [false, true].map((search) => pageQuery(cursor, search)))

interface OrganisationRow {
  id: string
  user_id: string
  first_name: string | null
  last_name: string | null
  avatar_url: string | null
  opportunity_count: number
  volunteer_count: number
  total_hours: string
  average_rating: string | null
  name: string
  description: string
  logo_url: string | null
  website: string | null
  contact_email: string
  location: string | null
  created_at: Date
}

const roundRating = (mean: string | null) => mean === null ? null : Math.round(Number(mean) * 10 + 1e-9) / 10

const directory = async (tenantId: number, url: URL) => {
  const perPageText = url.searchParams.get("per_page")
  const perPage = perPageText === null
    ? PER_PAGE_DEFAULT
    : Math.min(PER_PAGE_MAX, Math.max(1, Math.trunc(Number(perPageText)) || 1))
  const cursorText = url.searchParams.get("cursor")
  const cursor = cursorText === null ? undefined : decodeCursor(cursorText)
  if (cursorText !== null && cursor === undefined) return undefined
  const search = url.searchParams.get("search")?.trim() || undefined
  const values: Array<unknown> = [tenantId]
  if (cursor !== undefined) values.push(cursor)
  if (search !== undefined) values.push(likePattern(search))
  values.push(perPage + 1)
  const { rows } = await pool.query<OrganisationRow>({
    ...QUERIES[cursor === undefined ? 0 : 1]![search === undefined ? 0 : 1]!,
    values
  })
  const page = rows.slice(0, perPage)
  const data = page.map((row) => ({
    id: Number(row.id),
    name: row.name,
    description: row.description,
    logo_url: row.logo_url,
    website: row.website,
    contact_email: row.contact_email,
    location: row.location,
    opportunity_count: row.opportunity_count,
    volunteer_count: row.volunteer_count,
    total_hours: Number(row.total_hours),
    average_rating: roundRating(row.average_rating),
    created_at: row.created_at.toISOString(),
    owner: {
      id: Number(row.user_id),
      first_name: row.first_name ?? "Deleted",
      last_name: row.last_name ?? "User",
      avatar_url: row.first_name === null ? null : row.avatar_url
    }
  }))
  return { data, meta: pageMeta(perPage, rows.length > perPage, data.at(-1)?.id) }
}

serveTenantGet(pool, PATH, async (tenantId, url, _req, res) => {
  const body = await directory(tenantId, url)
  return body === undefined
    ? send(res, 422, { errors: [{ code: "VALIDATION_ERROR", message: "bad cursor", field: "cursor" }] })
    : send(res, 200, body)
})
