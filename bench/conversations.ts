// A member's conversations, GET /api/v2/messages/conversations (first page, 20 items): our API against a bare
// node:http + pg server doing the same SQL (token → caller, the page of summary rows joined to their last messages,
// the other members' names; bench/servers/bareConversations.ts), in one run, on one database, with the same load
// settings (BENCH_CONNECTIONS, BENCH_WARMUP, BENCH_DURATION).
//
// Set-up (not measured): one PostgreSQL (embedded in a temp dir, or DATABASE_URL); a tenant made through the
// super-admin API; one member with a session and an access token written as a login writes them (only the SHA-256
// is stored); BENCH_CONVERSATIONS other members (default 1,000), each with a thread with the member of 1 to 6
// messages both ways, about half of those to the member read; BENCH_NOISE more threads between the other members
// (default 2,000: rows of the same tables the member's list must skip). Messages are inserted in a random order, so
// that a conversation's place in the list is not its thread's; the summary rows are computed from the messages in
// one statement, then ANALYZE.
//
// Measured: (1) the first page; (2) a cycle of the first page and four cursor pages (pages 2, 10, 25 and the last
// full page), on both servers, under load; (3) the first page on ONE connection, BENCH_SINGLE_REQUESTS requests
// (default 500) one after the other, on both servers: the latency of a request on its own (p50/p99), where the loaded
// p50 is mostly queueing. The headline ratio is (1).
// Checks: every answer 2xx; the first page holds 20 items, newest first, and is exactly the top 20 of the member's
// threads by their latest message counted from the messages table (not from the summary rows); each item's
// unread_count equals the unread messages to the member in that thread, counted in SQL; both servers answer the same
// JSON for each path; a walk of the whole list (per_page=100) sees every conversation once, in descending order of
// the last message, and ends without a cursor.
import pg from "pg"
import {
  ACCESS_TOKEN_SECONDS,
  hashToken,
  newToken,
  REFRESH_TOKEN_SECONDS
} from "../packages/server/src/identity/Tokens.js"
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
  sequentialLoad,
  walkPages
} from "./lib.js"
import { readScene } from "./setup.js"

const PATH = "/api/v2/messages/conversations"

const settings = () => ({
  conversations: envInt("BENCH_CONVERSATIONS", 1_000),
  noise: envInt("BENCH_NOISE", 2_000),
  single: envInt("BENCH_SINGLE_REQUESTS", 500)
})

const WORDS = [
  "Could you",
  "help me with",
  "the garden",
  "on Saturday?",
  "Thanks for",
  "the lift",
  "see you soon",
  "🌱"
]

/** The member (signed in) and the data set, straight into the database. */
const seed = async (db: pg.Pool, tenantId: number, s: ReturnType<typeof settings>) => {
  const { rows: [me] } = await db.query<{ id: string; session_id: string }>(
    `WITH u AS (
       INSERT INTO users (tenant_id, email, first_name, last_name, status, is_approved)
       VALUES ($1, 'me@bench.test', 'Mia', 'Member', 'active', true) RETURNING id
     )
     INSERT INTO auth_sessions (tenant_id, user_id, kind, expires_at)
     SELECT $1, id, 'login', now() + make_interval(secs => $2) FROM u RETURNING id AS session_id, user_id AS id`,
    [tenantId, REFRESH_TOKEN_SECONDS]
  )
  const token = newToken()
  await db.query(
    `INSERT INTO access_tokens (token_hash, session_id, expires_at) VALUES ($1, $2, now() + make_interval(secs => $3))`,
    [hashToken(token), me!.session_id, ACCESS_TOKEN_SECONDS]
  )
  const peers = (await db.query<{ id: string }>(
    `INSERT INTO users (tenant_id, email, first_name, last_name, status, is_approved, avatar_url)
     SELECT $1, 'peer' || g || '@bench.test', 'Peer', 'No. ' || g, 'active', true,
            CASE WHEN g % 3 = 0 THEN 'https://img.example.org/peer' || g || '.png' END
     FROM generate_series(1, $2) g RETURNING id`,
    [tenantId, s.conversations]
  )).rows.map((r) => r.id)
  // The member's threads, and the noise: threads between two peers.
  await db.query(
    `INSERT INTO message_threads (tenant_id, user_low, user_high)
     SELECT $1, least($2::bigint, p), greatest($2::bigint, p) FROM unnest($3::bigint[]) p`,
    [tenantId, me!.id, peers]
  )
  await db.query(
    `INSERT INTO message_threads (tenant_id, user_low, user_high)
     SELECT DISTINCT $1::bigint, least(a, b), greatest(a, b) FROM (
       SELECT ($2::bigint[])[1 + g % n] AS a, ($2::bigint[])[1 + (g * 7 + 1 + g / n) % n] AS b
       FROM generate_series(1, $3) g, (SELECT cardinality($2::bigint[]) AS n) c
     ) pairs WHERE a <> b
     ON CONFLICT DO NOTHING`,
    [tenantId, peers, s.noise]
  )
  // 1 to 6 messages per thread, both ways, written in a random order (ids, and so recency, follow that order).
  await db.query(
    `INSERT INTO messages (tenant_id, thread_id, sender_id, recipient_id, subject, body, read_at, created_at)
     SELECT tenant_id, thread_id, sender_id, recipient_id, subject, body, read_at, clock_timestamp()
     FROM (
       SELECT t.tenant_id, t.id AS thread_id,
              CASE WHEN k % 2 = 0 THEN t.user_low ELSE t.user_high END AS sender_id,
              CASE WHEN k % 2 = 0 THEN t.user_high ELSE t.user_low END AS recipient_id,
              CASE WHEN k = 1 AND t.id % 4 = 0 THEN 'About thread ' || t.id END AS subject,
              ($2::text[])[1 + (t.id + k) % cardinality($2::text[])] || ' ' ||
                ($2::text[])[1 + (t.id * k) % cardinality($2::text[])] || ' #' || k AS body,
              CASE WHEN random() < 0.5 THEN now() END AS read_at
       FROM message_threads t, generate_series(1, 1 + t.id::int % 6) k
       WHERE t.tenant_id = $1
       ORDER BY random()
     ) m`,
    [tenantId, WORDS]
  )
  // Each member's summary row of each thread, from the messages.
  await db.query(
    `INSERT INTO message_thread_members
       (tenant_id, thread_id, user_id, other_user_id, last_message_id, last_message_at, unread_count)
     SELECT t.tenant_id, t.id, u.user_id, u.other_id, last.id, last.created_at,
            (SELECT count(*) FROM messages m
             WHERE m.thread_id = t.id AND m.recipient_id = u.user_id AND m.read_at IS NULL)::int
     FROM message_threads t
     CROSS JOIN LATERAL (VALUES (t.user_low, t.user_high), (t.user_high, t.user_low)) AS u (user_id, other_id)
     CROSS JOIN LATERAL (
       SELECT id, created_at FROM messages m WHERE m.thread_id = t.id ORDER BY id DESC LIMIT 1
     ) last
     WHERE t.tenant_id = $1`,
    [tenantId]
  )
  for (const table of ["users", "message_threads", "messages", "message_thread_members"]) {
    await db.query(`ANALYZE ${table}`)
  }
  const { rows: [counts] } = await db.query<{ threads: number; messages: number }>(
    `SELECT (SELECT count(*) FROM message_threads WHERE tenant_id = $1)::int AS threads,
            (SELECT count(*) FROM messages WHERE tenant_id = $1)::int AS messages`,
    [tenantId]
  )
  return { me: Number(me!.id), token, ...counts! }
}

interface Item {
  readonly thread_id: number
  readonly user: { readonly id: number }
  readonly last_message: { readonly id: number }
  readonly unread_count: number
}

/** The member's threads by their latest message, and their unread messages, counted from `messages` alone. */
const expectedFromMessages = async (db: pg.Pool, tenantId: number, me: number) => {
  const { rows } = await db.query<{ thread_id: number; last_id: number; unread: number }>(
    `SELECT thread_id::int, max(id)::int AS last_id,
            count(*) FILTER (WHERE recipient_id = $2 AND read_at IS NULL)::int AS unread
     FROM messages WHERE tenant_id = $1 AND $2 IN (sender_id, recipient_id)
     GROUP BY thread_id ORDER BY last_id DESC`,
    [tenantId, me]
  )
  return rows
}

export default async function conversations(): Promise<void> {
  const s = settings()
  const started = Date.now()
  const scene = await readScene("bench/servers/bareConversations.ts", "bench-dm")
  try {
    // ---- set-up, not measured
    const { client: api, baselineClient: bare, pool } = scene
    const tenantId = scene.tenant.id
    const data = await seed(pool, tenantId, s)
    const setupSeconds = secondsSince(scene.setupStart)
    console.log(
      `set-up ${setupSeconds} s: a member with ${s.conversations} conversations; ${data.threads} threads and ` +
        `${data.messages} messages in the tenant (database: ${databaseKind()})`
    )
    const headers = { "x-tenant-id": String(tenantId), authorization: `Bearer ${data.token}` }
    const get = async (client: Client, path: string) => {
      const answer = await client.send("GET", path, { headers })
      return { body: expectStatus(`GET ${path}`, answer, 200) as Page<Item>, text: answer.text }
    }

    // ---- correctness, before any load
    const expected = await expectedFromMessages(pool, tenantId, data.me)
    const first = (await get(api, PATH)).body
    const top = expected.slice(0, 20)
    const firstPageOk = first.data.length === 20 && first.meta.per_page === 20 && first.meta.has_more &&
      first.data.every((item, i) =>
        item.thread_id === top[i]!.thread_id && item.last_message.id === top[i]!.last_id &&
        (i === 0 || item.last_message.id < first.data[i - 1]!.last_message.id)
      )
    const unreadOf = new Map(expected.map((e) => [e.thread_id, e.unread]))
    const unreadMatch = first.data.every((item) => unreadOf.get(item.thread_id) === item.unread_count)

    const walk = await walkPages(async (path) => (await get(api, path)).body, PATH, 100)
    const walked = walk.items
    const walkOk = walked.length === s.conversations && new Set(walked.map((i) =>
          i.thread_id
        )).size === walked.length &&
      walked.every((item, i) =>
        item.last_message.id === expected[i]?.last_id && item.unread_count === expected[i]!.unread &&
        (i === 0 || item.last_message.id < walked[i - 1]!.last_message.id)
      ) && walk.last?.has_more === false
    const cursorAfter = (index: number) =>
      Buffer.from(JSON.stringify(expected[index - 1]!.last_id), "utf8").toString("base64url")
    const cursors = [20, 180, 480, Math.floor((s.conversations - 20) / 20) * 20]
      .filter((offset) => offset > 0 && offset + 20 <= s.conversations)
      .map((offset) => `${PATH}?cursor=${cursorAfter(offset)}`)
    let sameBody = true
    let pageSizes = true
    for (const path of [PATH, ...cursors]) {
      const ours = await get(api, path)
      const theirs = await get(bare, path)
      sameBody &&= ours.text === theirs.text
      pageSizes &&= ours.body.data.length === 20
    }
    console.log(`first item: ${JSON.stringify(first.data[0])}`)

    // ---- measured
    const mixed = [PATH, ...cursors]
    const [BARE, OURS] = ["bare node:http + pg  ", "timebank API         "]
    const { base: bareBase, port: barePort } = scene.baseline
    const { base: ourBase, port: ourPort } = scene.api
    const bareFirst = await autocannonLoad(`${BARE}first page`, bareBase, headers, [PATH])
    const ourFirst = await autocannonLoad(`${OURS}first page`, ourBase, headers, [PATH])
    const bareMixed = await autocannonLoad(`${BARE}first + 4 cursor pages`, bareBase, headers, mixed)
    const ourMixed = await autocannonLoad(`${OURS}first + 4 cursor pages`, ourBase, headers, mixed)
    const bareSingle = await sequentialLoad(`${BARE}first page, 1 connection`, barePort, PATH, headers, s.single)
    const ourSingle = await sequentialLoad(`${OURS}first page, 1 connection`, ourPort, PATH, headers, s.single)
    const loads = [bareFirst, ourFirst, bareMixed, ourMixed, bareSingle, ourSingle]
    const { connections, duration } = loadSettings()
    console.log(
      `\n${connections} connections, ${duration} s each after warm-up; 1 connection: ${s.single} requests one after ` +
        `the other; ${s.conversations} conversations; total ${Math.round((Date.now() - started) / 1000)} s`
    )
    printTable(loads)
    const ratio = (a: Load, b: Load) => Math.round((a.rps / Math.max(1, b.rps)) * 1000) / 1000
    printResult("conversations", ourFirst.rps, bareFirst.rps, {
      all_2xx: loads.every((l) => l.non2xx === 0 && l.errors === 0),
      first_page_20_newest_first: firstPageOk,
      unread_counts_match_sql: unreadMatch,
      same_json_as_baseline: sameBody,
      page_sizes_20: pageSizes,
      full_walk_ok: walkOk,
      walk_pages: walk.pages,
      conversations: s.conversations,
      p50_ms: ourFirst.p50,
      p99_ms: ourFirst.p99,
      baseline_p50_ms: bareFirst.p50,
      baseline_p99_ms: bareFirst.p99,
      single_p50_ms: ourSingle.p50,
      single_p99_ms: ourSingle.p99,
      single_baseline_p50_ms: bareSingle.p50,
      single_baseline_p99_ms: bareSingle.p99,
      cursor_pages_rps: ourMixed.rps,
      cursor_pages_baseline_rps: bareMixed.rps,
      cursor_pages_ratio: ratio(ourMixed, bareMixed),
      setup_seconds: setupSeconds
    })
  } finally {
    await scene.close()
  }
}
