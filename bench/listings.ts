// The public listings list as a signed-in member reads it, GET /api/v2/listings?search=…&category_id=…&per_page=20
// with a bearer token: our API against a bare node:http + pg server doing the same SQL (the token's lookup, then the
// page with its owners and categories; bench/servers/bareListings.ts), in one run, on one database, with the same
// load settings (BENCH_CONNECTIONS, BENCH_WARMUP, BENCH_DURATION).
//
// Set-up (not measured): one PostgreSQL (embedded in a temp dir, or DATABASE_URL); a tenant made through the
// super-admin API; BENCH_LISTING_CATEGORIES listing categories (default 20), BENCH_LISTING_OWNERS members (default
// 2,000) and BENCH_LISTINGS listings (default 50,000: offers and requests across the categories, a few without a
// category, every 25th pending and every 40th deleted, so not listed; some with attribute values), written straight
// to the database with generate_series, then ANALYZE. A member registers through the API, is approved, and signs
// in: every request of the load carries their bearer token (so both servers check it).
//
// Measured, each on both servers: (1) search + category (`?search=garden&category_id=C`, the headline ratio);
// (2) a cycle of search + category, category only, search only, and search + category + type; (3) the first page
// with no filter.
// Checks: every answer 2xx; both servers answer the very same JSON for each path; the listings of every checked
// page are exactly what an independent SQL query lists (active, not deleted, filters applied, id-descending); a
// walk through one category (per_page=50) sees every listing once; a bad token is 401 on both. The baseline must
// run clean: every answer 2xx, and the database's connections (all clients, watched every 100 ms) within
// max_connections; otherwise `clean` is false and the bench exits non-zero. Target (issue 20): ratio ≥ 0.6,
// reported as `meets_ratio_target`.
import { randomBytes } from "node:crypto"
import pg from "pg"
import {
  autocannonLoad,
  type Client,
  databaseKind,
  envInt,
  expectStatus,
  type Load,
  loadSettings,
  type Page,
  printResult,
  printTable,
  secondsSince
} from "./lib.js"
import { watchConnections } from "./servers/bareLib.js"
import { login, readScene } from "./setup.js"

const PATH = "/api/v2/listings"

const settings = () => ({
  listings: envInt("BENCH_LISTINGS", 50_000),
  owners: envInt("BENCH_LISTING_OWNERS", 2_000),
  categories: envInt("BENCH_LISTING_CATEGORIES", 20)
})

const WORDS = ["garden", "repair", "tutoring", "cooking", "cleaning", "driving", "painting", "music", "sewing", "dogs"]

/** The data set, straight into the database; returns the listing categories' ids. */
const seed = async (db: pg.Pool, tenantId: number, s: ReturnType<typeof settings>): Promise<Array<number>> => {
  const owners = (await db.query<{ id: string }>(
    `INSERT INTO users (tenant_id, email, first_name, last_name, status, is_approved, avatar_url)
     SELECT $1, 'member' || g || '@bench.test', 'Member', 'No. ' || g, 'active', true,
            CASE WHEN g % 3 = 0 THEN 'https://img.example.org/member' || g || '.png' END
     FROM generate_series(1, $2) g RETURNING id`,
    [tenantId, s.owners]
  )).rows.map((r) => r.id)
  const categories = (await db.query<{ id: string }>(
    `INSERT INTO categories (tenant_id, type, name, slug, color)
     SELECT $1, 'listing', 'Category ' || g, 'category-' || g, CASE WHEN g % 2 = 0 THEN '#336699' END
     FROM generate_series(1, $2) g RETURNING id`,
    [tenantId, s.categories]
  )).rows.map((r) => Number(r.id))
  await db.query(
    `INSERT INTO listings (tenant_id, user_id, type, title, description, category_id, hours_estimate, location,
                           attributes, status, deleted_at, created_at, updated_at)
     SELECT $1, ($2::bigint[])[1 + g % cardinality($2::bigint[])],
            CASE WHEN g % 2 = 0 THEN 'offer' ELSE 'request' END,
            initcap(($4::text[])[1 + g % cardinality($4::text[])]) || ' help no. ' || g,
            'I can help with ' || ($4::text[])[1 + (g / 7) % cardinality($4::text[])] || ' and ' ||
              ($4::text[])[1 + (g / 3) % cardinality($4::text[])] || ' around district ' || (g % 41) || '.',
            CASE WHEN g % 50 = 0 THEN NULL ELSE ($3::bigint[])[1 + (g / 2) % cardinality($3::bigint[])] END,
            CASE WHEN g % 4 = 0 THEN NULL ELSE 0.25 * (1 + g % 12) END,
            CASE WHEN g % 5 = 0 THEN 'District ' || (g % 41) END,
            CASE WHEN g % 9 = 0 THEN jsonb_build_object('1', 'blue', '2', g % 7, '3', g % 2 = 0) ELSE '{}' END,
            CASE WHEN g % 25 = 0 THEN 'pending' ELSE 'active' END,
            CASE WHEN g % 40 = 0 THEN now() END,
            now() - ($5 - g) * interval '1 minute', now() - ($5 - g) * interval '30 seconds'
     FROM generate_series(1, $5) g`,
    [tenantId, owners, categories, WORDS, s.listings]
  )
  for (const table of ["users", "categories", "listings"]) await db.query(`ANALYZE ${table}`)
  return categories
}

interface Item {
  readonly id: number
}

interface Filters {
  readonly search?: string
  readonly category?: number
  readonly type?: string
}

const pathOf = (f: Filters, perPage = 20) => {
  const params = new URLSearchParams({ per_page: String(perPage) })
  if (f.search !== undefined) params.set("search", f.search)
  if (f.category !== undefined) params.set("category_id", String(f.category))
  if (f.type !== undefined) params.set("type", f.type)
  return `${PATH}?${params.toString()}`
}

/** The ids a page of `f` must list, the plain way (not the code under test). */
const expectedIds = async (db: pg.Pool, tenantId: number, f: Filters, limit: number) => {
  const { rows } = await db.query<{ id: string }>(
    `SELECT id FROM listings
     WHERE tenant_id = $1 AND deleted_at IS NULL AND status = 'active'
       AND ($2::text IS NULL OR strpos(lower(title), $2) > 0 OR strpos(lower(description), $2) > 0)
       AND ($3::bigint IS NULL OR category_id = $3) AND ($4::text IS NULL OR type = $4)
     ORDER BY id DESC LIMIT $5`,
    [tenantId, f.search?.toLowerCase() ?? null, f.category ?? null, f.type ?? null, limit]
  )
  return rows.map((r) => Number(r.id))
}

/** Every listing of `category` through the API, page by page (per_page=50, each next cursor; 2,000 pages at most). */
const walkCategory = async (api: Client, headers: Record<string, string>, category: number) => {
  const ids: Array<number> = []
  let pages = 0
  for (let cursor: string | undefined = ""; cursor !== undefined && pages < 2_000; pages++) {
    const path = `${pathOf({ category }, 50)}${cursor === "" ? "" : `&cursor=${cursor}`}`
    const page = expectStatus(path, await api.send("GET", path, { headers }), 200) as Page<Item>
    ids.push(...page.data.map((i) => i.id))
    cursor = page.meta.has_more ? page.meta.cursor : undefined
  }
  return { ids, pages }
}

let ipCounter = 0
const nextIp = () => {
  const n = ipCounter++ % 0xffffff
  return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`
}

export default async function listings(): Promise<void> {
  const s = settings()
  const started = Date.now()
  const scene = await readScene("bench/servers/bareListings.ts", "bench-lst", { env: { TRUST_PROXY: "true" } })
  try {
    // ---- set-up, not measured
    const { client: api, baselineClient: bare, pool } = scene
    const tenantId = scene.tenant.id
    const categories = await seed(pool, tenantId, s)
    const tenantHeaders = scene.tenant.headers
    const member = {
      email: `reader-${randomBytes(3).toString("hex")}@bench.test`,
      password: randomBytes(12).toString("hex")
    }
    expectStatus(
      "register the member",
      await api.send("POST", "/api/v2/auth/register", {
        headers: { ...tenantHeaders, "x-forwarded-for": nextIp() },
        json: { ...member, first_name: "Bench", last_name: "Reader" }
      }),
      201
    )
    await pool.query(
      "UPDATE users SET status = 'active', is_approved = true WHERE tenant_id = $1 AND email = $2",
      [tenantId, member.email]
    )
    const { token } = await login(api, tenantHeaders, member.email, member.password, nextIp())
    const headers = { ...tenantHeaders, authorization: `Bearer ${token}` }
    const setupSeconds = secondsSince(scene.setupStart)
    const { rows: [listed] } = await pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM listings WHERE tenant_id = $1 AND deleted_at IS NULL AND status = 'active'",
      [tenantId]
    )
    console.log(
      `set-up ${setupSeconds} s: ${s.listings} listings (${listed!.n} listed), ${s.categories} categories, ` +
        `${s.owners} owners (database: ${databaseKind()})`
    )

    const get = async (client: Client, path: string, extra: Record<string, string> = {}) =>
      client.send("GET", path, { headers: { ...headers, ...extra } })

    // ---- correctness, before any load
    const category = categories[3]!
    const headline: Filters = { search: "garden", category }
    const cycle: ReadonlyArray<Filters> = [
      headline,
      { category },
      { search: "repair" },
      { search: "garden", category, type: "offer" }
    ]
    const checked = [...cycle, {}]
    let sameBody = true
    let pagesMatchSql = true
    for (const f of checked) {
      const path = pathOf(f)
      const ours = await get(api, path)
      const theirs = await get(bare, path)
      const body = expectStatus(`GET ${path}`, ours, 200) as Page<Item>
      expectStatus(`baseline GET ${path}`, theirs, 200)
      sameBody &&= ours.text === theirs.text
      const expected = await expectedIds(pool, tenantId, f, 20)
      pagesMatchSql &&= expected.length > 0 && JSON.stringify(body.data.map((i) => i.id)) === JSON.stringify(expected)
    }
    const walk = await walkCategory(api, headers, category)
    const inCategory = await expectedIds(pool, tenantId, { category }, 1_000_000)
    const walkOk = JSON.stringify(walk.ids) === JSON.stringify(inCategory)
    const badToken = { authorization: `Bearer ${randomBytes(24).toString("base64url")}` }
    const badTokenRefused = (await get(api, pathOf(headline), badToken)).status === 401 &&
      (await get(bare, pathOf(headline), badToken)).status === 401

    // ---- measured
    const [BARE, OURS] = ["bare node:http + pg  ", "timebank API         "]
    const measure = (label: string, base: string, paths: ReadonlyArray<string>) =>
      autocannonLoad(label, base, headers, paths)
    const stopWatch = await watchConnections(scene.database.url)
    const bareHeadline = await measure(`${BARE}search + category`, scene.baseline.base, [pathOf(headline)])
    const ourHeadline = await measure(`${OURS}search + category`, scene.api.base, [pathOf(headline)])
    const bareCycle = await measure(`${BARE}4 filter mixes`, scene.baseline.base, cycle.map((f) => pathOf(f)))
    const ourCycle = await measure(`${OURS}4 filter mixes`, scene.api.base, cycle.map((f) => pathOf(f)))
    const bareFirst = await measure(`${BARE}first page, no filter`, scene.baseline.base, [pathOf({})])
    const ourFirst = await measure(`${OURS}first page, no filter`, scene.api.base, [pathOf({})])
    const connections = await stopWatch()
    const loads = [bareHeadline, ourHeadline, bareCycle, ourCycle, bareFirst, ourFirst]
    const { connections: clients, duration } = loadSettings()
    console.log(
      `\n${clients} connections, ${duration} s each after warm-up; ${s.listings} listings; ` +
        `total ${Math.round((Date.now() - started) / 1000)} s`
    )
    printTable(loads)
    console.log(`database connections at most ${connections.peak} (max_connections ${connections.max})`)
    const ratio = (a: Load, b: Load) => Math.round((a.rps / Math.max(1, b.rps)) * 1000) / 1000
    const failed = (l: Load) => l.non2xx + l.errors
    const checks = {
      all_2xx: loads.every((l) => failed(l) === 0),
      same_json_as_baseline: sameBody,
      pages_match_sql: pagesMatchSql,
      category_walk_ok: walkOk,
      walk_pages: walk.pages,
      bad_token_401: badTokenRefused,
      listed: listed!.n,
      p99_ms: ourHeadline.p99,
      mixes_rps: ourCycle.rps,
      mixes_baseline_rps: bareCycle.rps,
      mixes_ratio: ratio(ourCycle, bareCycle),
      first_page_rps: ourFirst.rps,
      first_page_baseline_rps: bareFirst.rps,
      first_page_ratio: ratio(ourFirst, bareFirst),
      baseline_failed: failed(bareHeadline) + failed(bareCycle) + failed(bareFirst),
      baseline_pool: envInt("DB_POOL_SIZE", 10),
      peak_connections: connections.peak,
      max_connections: connections.max,
      connections_within_limit: connections.peak <= connections.max,
      meets_ratio_target: ratio(ourHeadline, bareHeadline) >= 0.6,
      setup_seconds: setupSeconds
    }
    const clean = checks.all_2xx && checks.same_json_as_baseline && checks.pages_match_sql &&
      checks.category_walk_ok && checks.bad_token_401 && checks.baseline_failed === 0 &&
      checks.connections_within_limit && ourHeadline.rps > 0 && bareHeadline.rps > 0
    printResult("listings", ourHeadline.rps, bareHeadline.rps, { ...checks, clean })
    if (!clean) process.exitCode = 1
  } finally {
    await scene.close()
  }
}
