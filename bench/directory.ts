// The public organisation directory, GET /api/v2/volunteering/organisations?per_page=20: our API against a bare
// node:http + pg server doing the equivalent SQL (page, owners, aggregates; bench/servers/bareDirectory.ts), in one
// run, on one database, with the same load settings (BENCH_CONNECTIONS, BENCH_WARMUP, BENCH_DURATION).
//
// Set-up (not measured): one PostgreSQL (embedded in a temp dir, or DATABASE_URL); a tenant made through the
// super-admin API; BENCH_ORGANISATIONS organisations (default 10,000; every 10th pending or suspended, so not
// listed) with owners, opportunities (open and closed), applications (approved and pending, some members approved
// twice), hour logs and reviews, written straight to the database with generate_series, then ANALYZE.
//
// Rate limit: the directory allows 60 requests a minute per client IP (spec "Limits") and the service has no switch
// to turn that off (nor should it). The API runs with TRUST_PROXY=true and every request of the load carries an
// X-Forwarded-For address of its own (autocannon `setupRequest`), so the limiter is on the path of every request
// (as in production) without refusing any. The baseline receives the same header and ignores it.
//
// Measured: (1) the first page; (2) a cycle of the first page and four cursor pages (page 2, 10, 100, and the last
// full page); (3) a search (`?search=river`), each on both servers. The headline ratio is (2). Targets (issue 20):
// ratio ≥ 0.6 and our p99 ≤ 25 ms, reported as `meets_ratio_target` and `meets_p99_target`.
// Checks: every answer 2xx; the pages used hold 20 items; both servers answer the very same JSON for each path;
// the aggregates of every organisation on those pages equal an independent per-organisation SQL count; a walk
// through the whole directory (per_page=50) sees every visible organisation once, id-descending, and ends without
// a cursor; the API's answers carry the directory's X-RateLimit-Limit of 60. The baseline must run clean: every
// answer 2xx, and the database's connections (all clients, watched every 100 ms) within max_connections; otherwise
// `clean` is false and the bench exits non-zero.
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
  secondsSince,
  walkPages
} from "./lib.js"
import { watchConnections } from "./servers/bareLib.js"
import { readScene } from "./setup.js"

const PATH = "/api/v2/volunteering/organisations"

const settings = () => ({
  organisations: envInt("BENCH_ORGANISATIONS", 10_000),
  owners: envInt("BENCH_OWNERS", 1_000),
  volunteers: envInt("BENCH_VOLUNTEERS", 2_000)
})

/** A different client address for each request (10.0.0.0/8 has room for 16 million). */
let ipCounter = 0
const nextIp = () => {
  const n = ipCounter++ % 0xffffff
  return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`
}

const THEMES = ["planting trees", "sorting food", "river cleaning", "tutoring kids", "visiting elders", "repair cafe"]

/** The data set, straight into the database; returns how many organisations the directory lists. */
const seed = async (db: pg.Pool, tenantId: number, s: ReturnType<typeof settings>): Promise<number> => {
  const users = async (label: string, count: number) =>
    (await db.query<{ id: string }>(
      `INSERT INTO users (tenant_id, email, first_name, last_name, status, is_approved, avatar_url)
       SELECT $1, $2 || g || '@bench.test', initcap($2), 'No. ' || g, 'active', true,
              CASE WHEN g % 3 = 0 THEN 'https://img.example.org/' || $2 || g || '.png' END
       FROM generate_series(1, $3) g RETURNING id`,
      [tenantId, label, count]
    )).rows.map((r) => r.id)
  const owners = await users("owner", s.owners)
  const volunteers = await users("volunteer", s.volunteers)
  await db.query(
    `INSERT INTO vol_organisations (tenant_id, user_id, name, slug, description, contact_email, website, location,
                                    status, created_at)
     SELECT $1, ($2::bigint[])[1 + g % cardinality($2::bigint[])], 'Organisation ' || lpad(g::text, 5, '0'),
            'organisation-' || g,
            'Volunteers ' || ($4::text[])[1 + g % cardinality($4::text[])] || ' in district ' || (g % 37) || '.',
            'org' || g || '@bench.test',
            CASE WHEN g % 2 = 0 THEN 'https://org' || g || '.example.org' END,
            CASE WHEN g % 3 = 0 THEN 'District ' || (g % 37) END,
            CASE WHEN g % 20 = 0 THEN 'pending' WHEN g % 20 = 10 THEN 'suspended'
                 WHEN g % 7 = 0 THEN 'approved' ELSE 'active' END,
            now() - ($3 - g) * interval '1 minute'
     FROM generate_series(1, $3) g`,
    [tenantId, owners, s.organisations, THEMES]
  )
  await db.query(
    `INSERT INTO vol_organisation_members (tenant_id, organisation_id, user_id, role, status)
     SELECT tenant_id, id, user_id, 'owner', 'active' FROM vol_organisations WHERE tenant_id = $1`,
    [tenantId]
  )
  // 1 to 4 opportunities each; every third one closed.
  await db.query(
    `INSERT INTO vol_opportunities (tenant_id, organisation_id, created_by, title, description, status)
     SELECT o.tenant_id, o.id, o.user_id, 'Opportunity ' || k, 'Come and help.',
            CASE WHEN k % 3 = 0 THEN 'closed' ELSE 'open' END
     FROM vol_organisations o, generate_series(1, 1 + o.id::int % 4) k WHERE o.tenant_id = $1`,
    [tenantId]
  )
  // 0 to 4 applicants per opportunity, drawn so that some members apply to several opportunities of one organisation.
  await db.query(
    `INSERT INTO vol_applications (tenant_id, opportunity_id, organisation_id, user_id, status)
     SELECT p.tenant_id, p.id, p.organisation_id,
            ($2::bigint[])[1 + ((p.organisation_id * 7 + j) % cardinality($2::bigint[]))::int],
            CASE WHEN j % 3 = 0 THEN 'pending' ELSE 'approved' END
     FROM vol_opportunities p, generate_series(1, p.id::int % 5) j WHERE p.tenant_id = $1`,
    [tenantId, volunteers]
  )
  await db.query(
    `INSERT INTO vol_hours (tenant_id, organisation_id, opportunity_id, user_id, date, hours, description, status)
     SELECT a.tenant_id, a.organisation_id, a.opportunity_id, a.user_id, current_date, 1 + (a.id % 8) * 0.25,
            'Helped', CASE WHEN a.id % 4 = 0 THEN 'pending' ELSE 'approved' END
     FROM vol_applications a WHERE a.tenant_id = $1 AND a.status = 'approved'`,
    [tenantId]
  )
  await db.query(
    `INSERT INTO reviews (tenant_id, reviewer_id, target_type, target_id, rating, comment)
     SELECT o.tenant_id, ($2::bigint[])[1 + ((o.id * 13 + j) % cardinality($2::bigint[]))::int], 'organization', o.id,
            1 + (o.id + j * 3) % 5, 'Review ' || j
     FROM vol_organisations o, generate_series(1, o.id::int % 6) j WHERE o.tenant_id = $1`,
    [tenantId, volunteers]
  )
  for (const table of ["users", "vol_organisations", "vol_opportunities", "vol_applications", "vol_hours", "reviews"]) {
    await db.query(`ANALYZE ${table}`)
  }
  const { rows: [visible] } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM vol_organisations WHERE tenant_id = $1 AND status IN ('active', 'approved')`,
    [tenantId]
  )
  return visible!.n
}

interface Item {
  readonly id: number
  readonly opportunity_count: number
  readonly volunteer_count: number
  readonly total_hours: number
  readonly average_rating: number | null
}

/** Each aggregate of `ids` counted the plain way, one organisation at a time (not the code under test). */
const expectedAggregates = async (db: pg.Pool, tenantId: number, ids: ReadonlyArray<number>) => {
  const { rows } = await db.query<Item & { total_hours: string; average_rating: string | null }>(
    `SELECT o.id::int AS id,
       (SELECT count(*) FROM vol_opportunities p WHERE p.organisation_id = o.id AND p.status = 'open')::int
         AS opportunity_count,
       (SELECT count(DISTINCT a.user_id) FROM vol_applications a
         WHERE a.organisation_id = o.id AND a.status = 'approved')::int AS volunteer_count,
       (SELECT coalesce(sum(h.hours), 0) FROM vol_hours h WHERE h.organisation_id = o.id AND h.status = 'approved')
         AS total_hours,
       (SELECT round(avg(r.rating), 1) FROM reviews r
         WHERE r.tenant_id = o.tenant_id AND r.target_type = 'organization' AND r.target_id = o.id AND r.approved)
         AS average_rating
     FROM vol_organisations o WHERE o.tenant_id = $1 AND o.id = ANY($2::bigint[])`,
    [tenantId, ids]
  )
  return new Map(rows.map((r) => [r.id, {
    id: r.id,
    opportunity_count: r.opportunity_count,
    volunteer_count: r.volunteer_count,
    total_hours: Number(r.total_hours),
    average_rating: r.average_rating === null ? null : Number(r.average_rating)
  }]))
}

const sameAggregates = (item: Item, expected: Item | undefined) =>
  expected !== undefined && item.opportunity_count === expected.opportunity_count &&
  item.volunteer_count === expected.volunteer_count && item.total_hours === expected.total_hours &&
  item.average_rating === expected.average_rating

/** Load on `base` cycling through `paths`, each request from an address of its own. */
const measurePaths = (label: string, base: string, tenantId: number, paths: ReadonlyArray<string>) =>
  autocannonLoad(label, base, { "x-tenant-id": String(tenantId) }, paths, {
    perRequest: () => ({ "x-forwarded-for": nextIp() })
  })

export default async function directory(): Promise<void> {
  const s = settings()
  const started = Date.now()
  const scene = await readScene("bench/servers/bareDirectory.ts", "bench-dir", { env: { TRUST_PROXY: "true" } })
  try {
    // ---- set-up, not measured
    const { client: api, baselineClient: bare, pool } = scene
    const tenantId = scene.tenant.id
    const visible = await seed(pool, tenantId, s)
    const setupSeconds = secondsSince(scene.setupStart)
    console.log(
      `set-up ${setupSeconds} s: ${s.organisations} organisations (${visible} listed), ${s.owners} owners, ` +
        `${s.volunteers} volunteers (database: ${databaseKind()})`
    )

    const get = async (client: Client, path: string) => {
      const answer = await client.send("GET", path, {
        headers: { "x-tenant-id": String(tenantId), "x-forwarded-for": nextIp() }
      })
      return { body: expectStatus(`GET ${path}`, answer, 200) as Page<Item>, text: answer.text }
    }

    // ---- correctness, before any load: a walk through the whole directory, and the pages the load uses
    const walk = await walkPages(async (path) => (await get(api, path)).body, PATH, 50)
    const walked = walk.items.map((i) => i.id)
    const walkOk = walked.length === visible && new Set(walked).size === visible &&
      walked.every((id, i) => i === 0 || id < walked[i - 1]!) && walk.last?.has_more === false
    const cursorAt = (index: number) => Buffer.from(JSON.stringify(walked[index - 1]), "utf8").toString("base64url")
    const first = `${PATH}?per_page=20`
    const cursorPages = [20, 180, 1_980, Math.floor((visible - 20) / 20) * 20]
      .filter((offset) => offset > 0 && offset + 20 <= visible)
      .map((offset) => `${PATH}?per_page=20&cursor=${cursorAt(offset)}`)
    const search = `${PATH}?per_page=20&search=river`
    const checked = [first, ...cursorPages, search]
    let sameBody = true
    let pageSizes = true
    let aggregatesMatch = true
    let rateLimitHeader = true
    for (const path of checked) {
      const ourAnswer = await api.send("GET", path, {
        headers: { "x-tenant-id": String(tenantId), "x-forwarded-for": nextIp() }
      })
      const { body, text } = { body: expectStatus(path, ourAnswer, 200) as Page<Item>, text: ourAnswer.text }
      const theirs = await get(bare, path)
      sameBody &&= text === theirs.text
      pageSizes &&= body.data.length === 20
      const expected = await expectedAggregates(pool, tenantId, body.data.map((i) => i.id))
      aggregatesMatch &&= body.data.every((item) => sameAggregates(item, expected.get(item.id)))
      const withLimit = await fetch(`${scene.api.base}${path}`, {
        headers: { "x-tenant-id": String(tenantId), "x-forwarded-for": nextIp() }
      })
      await withLimit.body?.cancel()
      rateLimitHeader &&= withLimit.headers.get("x-ratelimit-limit") === "60"
    }
    const known = (await get(api, first)).body.data[0]!
    console.log(`known organisation ${known.id}: ${JSON.stringify(known)}`)

    // ---- measured
    const apiBase = scene.api.base
    const bareBase = scene.baseline.base
    const mixed = [first, ...cursorPages]
    const [BARE, OURS] = ["bare node:http + pg  ", "timebank API         "]
    const stopWatch = await watchConnections(scene.database.url)
    const bareFirst = await measurePaths(`${BARE}first page`, bareBase, tenantId, [first])
    const ourFirst = await measurePaths(`${OURS}first page`, apiBase, tenantId, [first])
    const bareMixed = await measurePaths(`${BARE}first + 4 cursor pages`, bareBase, tenantId, mixed)
    const ourMixed = await measurePaths(`${OURS}first + 4 cursor pages`, apiBase, tenantId, mixed)
    const bareSearch = await measurePaths(`${BARE}search=river`, bareBase, tenantId, [search])
    const ourSearch = await measurePaths(`${OURS}search=river`, apiBase, tenantId, [search])
    const loads = [bareFirst, ourFirst, bareMixed, ourMixed, bareSearch, ourSearch]
    const connections = await stopWatch()
    const { connections: clients, duration } = loadSettings()
    console.log(
      `\n${clients} connections, ${duration} s each after warm-up; ${s.organisations} organisations ` +
        `(${visible} listed); total ${Math.round((Date.now() - started) / 1000)} s`
    )
    printTable(loads)
    console.log(`database connections at most ${connections.peak} (max_connections ${connections.max})`)
    const ratio = (a: Load, b: Load) => Math.round((a.rps / Math.max(1, b.rps)) * 1000) / 1000
    const failed = (l: Load) => l.non2xx + l.errors
    const checks = {
      all_2xx: loads.every((l) => failed(l) === 0),
      page_sizes_20: pageSizes,
      same_json_as_baseline: sameBody,
      aggregates_match_sql: aggregatesMatch,
      full_walk_ok: walkOk,
      walk_pages: walk.pages,
      listed: visible,
      rate_limit_header_60: rateLimitHeader,
      first_page_rps: ourFirst.rps,
      first_page_baseline_rps: bareFirst.rps,
      first_page_ratio: ratio(ourFirst, bareFirst),
      search_rps: ourSearch.rps,
      search_baseline_rps: bareSearch.rps,
      search_ratio: ratio(ourSearch, bareSearch),
      p99_ms: ourMixed.p99,
      first_page_p99_ms: ourFirst.p99,
      baseline_failed: failed(bareFirst) + failed(bareMixed) + failed(bareSearch),
      baseline_pool: envInt("DB_POOL_SIZE", 10),
      peak_connections: connections.peak,
      max_connections: connections.max,
      connections_within_limit: connections.peak <= connections.max,
      meets_ratio_target: ratio(ourMixed, bareMixed) >= 0.6,
      meets_p99_target: ourMixed.p99 <= 25,
      setup_seconds: setupSeconds
    }
    const clean = checks.all_2xx && checks.page_sizes_20 && checks.same_json_as_baseline &&
      checks.aggregates_match_sql && checks.full_walk_ok && checks.rate_limit_header_60 &&
      checks.baseline_failed === 0 && checks.connections_within_limit && ourMixed.rps > 0 && bareMixed.rps > 0
    printResult("directory", ourMixed.rps, bareMixed.rps, { ...checks, clean })
    if (!clean) process.exitCode = 1
  } finally {
    await scene.close()
  }
}
