// Baseline for `npm run bench -- directory`: the organisation directory on a bare node:http + pg server doing the
// same SQL as the API (the page, then its owners and its aggregates side by side), with prepared statements and
// hand-written JSON of the same shape. No tenant lookup (X-Tenant-ID is taken as the id), no auth, no rate limit.
import { barePool, decodeCursor, pageMeta, send, serveTenantGet, userSummaries } from "./bareLib.js"

const pool = barePool("bench-bare-directory")

const PATH = "/api/v2/volunteering/organisations"
const PER_PAGE_DEFAULT = 20
const PER_PAGE_MAX = 50

const likePattern = (search: string) => `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

/** One prepared statement per shape, so each keeps the plan that fits it (index range on id, or not). */
const pageQuery = (cursor: boolean, search: boolean) => {
  const conditions = ["tenant_id = $1", "status IN ('active', 'approved')"]
  const values = ["$1"]
  if (cursor) conditions.push(`id < $${values.push("cursor")}`)
  if (search) {
    const n = values.push("search")
    conditions.push(`(name ILIKE $${n} OR description ILIKE $${n})`)
  }
  return {
    name: `directory_page_${cursor}_${search}`,
    text: `SELECT id, user_id, name, description, logo_url, website, contact_email, location, created_at
           FROM vol_organisations WHERE ${conditions.join(" AND ")} ORDER BY id DESC LIMIT $${values.length + 1}`
  }
}

const AGGREGATES = {
  name: "directory_aggregates",
  text: `
    SELECT ids.id,
           coalesce(op.n, 0)::int AS opportunity_count,
           coalesce(ap.n, 0)::int AS volunteer_count,
           coalesce(h.total, 0) AS total_hours,
           r.mean AS average_rating
    FROM unnest($2::bigint[]) AS ids (id)
    LEFT JOIN (
      SELECT organisation_id, count(*) AS n FROM vol_opportunities
      WHERE tenant_id = $1 AND organisation_id = ANY($2::bigint[]) AND status = 'open' GROUP BY organisation_id
    ) op ON op.organisation_id = ids.id
    LEFT JOIN (
      SELECT organisation_id, count(DISTINCT user_id) AS n FROM vol_applications
      WHERE tenant_id = $1 AND organisation_id = ANY($2::bigint[]) AND status = 'approved' GROUP BY organisation_id
    ) ap ON ap.organisation_id = ids.id
    LEFT JOIN (
      SELECT organisation_id, sum(hours) AS total FROM vol_hours
      WHERE tenant_id = $1 AND organisation_id = ANY($2::bigint[]) AND status = 'approved' GROUP BY organisation_id
    ) h ON h.organisation_id = ids.id
    LEFT JOIN (
      SELECT target_id, avg(rating) AS mean FROM reviews
      WHERE tenant_id = $1 AND target_type = 'organization' AND target_id = ANY($2::bigint[]) AND approved
      GROUP BY target_id
    ) r ON r.target_id = ids.id`
}

interface OrganisationRow {
  id: string
  user_id: string
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
    ...pageQuery(cursor !== undefined, search !== undefined),
    values
  })
  const page = rows.slice(0, perPage)
  const ids = page.map((r) => r.id)
  const [ownerOf, stats] = await Promise.all([
    userSummaries(pool, tenantId, page.map((r) => r.user_id)),
    ids.length === 0 ? { rows: [] } : pool.query({ ...AGGREGATES, values: [tenantId, ids] })
  ])
  const statsOf = new Map(stats.rows.map((s) => [s.id as string, s]))
  const data = page.map((row) => {
    const s = statsOf.get(row.id)
    return {
      id: Number(row.id),
      name: row.name,
      description: row.description,
      logo_url: row.logo_url,
      website: row.website,
      contact_email: row.contact_email,
      location: row.location,
      opportunity_count: s?.opportunity_count ?? 0,
      volunteer_count: s?.volunteer_count ?? 0,
      total_hours: Number(s?.total_hours ?? 0),
      average_rating: roundRating(s?.average_rating ?? null),
      created_at: row.created_at.toISOString(),
      owner: ownerOf(row.user_id)
    }
  })
  return { data, meta: pageMeta(perPage, rows.length > perPage, data.at(-1)?.id) }
}

serveTenantGet(pool, PATH, async (tenantId, url, _req, res) => {
  const body = await directory(tenantId, url)
  return body === undefined
    ? send(res, 422, { errors: [{ code: "VALIDATION_ERROR", message: "bad cursor", field: "cursor" }] })
    : send(res, 200, body)
})
