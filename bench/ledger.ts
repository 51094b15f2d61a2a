// Transfers between members: our API (HTTP → Ledger entity → group commit) against a bare SQL script doing the same
// transfer transaction directly on PostgreSQL (one database transaction per transfer), on the same database.
//
// Set-up (not measured): one PostgreSQL (embedded in a temp dir, or a new database on the DATABASE_URL server, dropped
// at the end) shared by the API, the CLI and the script; two fresh tenants made through the super-admin API;
// BENCH_MEMBERS members in each, written straight to the database (one INSERT, one shared password hash); each member
// of the first tenant logged in over HTTP; every member funded with BENCH_GRANT_HOURS through admin grants.
// Measured: BENCH_TRANSFERS random transfers (after BENCH_WARMUP_TRANSFERS unmeasured ones) with BENCH_CONCURRENCY in
// flight — first through the API on the first tenant, then, with the API stopped (its outbox publisher would otherwise work through the script's events), through
// the script on the second tenant, with the very same sequence of moves. `ledger verify` (the CLI) checks both.
// The script holds at most BENCH_SQL_POOL connections (20; the API's pool is DB_POOL_SIZE, 10): the bench fails (a
// check false, exit code 1) when the baseline failed a transfer, when the server's connections ever passed its
// max_connections, or when either ledger does not verify.
//
// Diagnostics: BENCH_SAMPLE_PG=1 (what the database connections wait on), BENCH_PROBE_WALLET=1 (GET /api/v2/wallet,
// the floor of an authenticated route), BENCH_API_NODE_FLAGS="--cpu-prof --cpu-prof-dir=DIR" (profile the API).
import { createHash, randomBytes, randomUUID, scryptSync } from "node:crypto"
import pg from "pg"
import {
  type Client,
  cpuMeter,
  databaseKind,
  envInt,
  expectStatus,
  type HttpAnswer,
  measure,
  perSecond,
  printResult,
  printRows,
  runPool,
  secondsSince,
  tally,
  type TimedRun,
  timedRun
} from "./lib.js"
import { runNode } from "./processes.js"
import { ownDatabase, watchConnections } from "./servers/bareLib.js"
import { createTenant, login, startScene } from "./setup.js"

const settings = () => ({
  members: envInt("BENCH_MEMBERS", 1_000),
  transfers: envInt("BENCH_TRANSFERS", 20_000),
  warmup: Number(process.env.BENCH_WARMUP_TRANSFERS ?? 500) || 0,
  concurrency: envInt("BENCH_CONCURRENCY", 100),
  /** Connections of the SQL script: bounded, so that it stays within the server's max_connections. */
  sqlPool: envInt("BENCH_SQL_POOL", 20),
  grantHours: envInt("BENCH_GRANT_HOURS", 20),
  /** Logins are scrypt-bound on the server; a few in flight keep its thread pool busy. */
  loginConcurrency: envInt("BENCH_LOGIN_CONCURRENCY", 8),
  seed: envInt("BENCH_SEED", 42)
})
type Settings = ReturnType<typeof settings>

const MEMBER_PASSWORD = "bench member password"

/**
 * A password hash in the format of packages/server/src/identity/Password.ts (`scrypt$N$r$p$salt$key`, base64url),
 * with N = 2^10 instead of 2^15. The server verifies with the parameters stored in the hash, so the set-up's
 * logins cost 1/32 of the CPU (with the real N, 1,000 logins take over two minutes here); nothing measured hashes.
 */
const setupHash = (password: string) => {
  const [n, r, p] = [1024, 8, 1]
  const salt = randomBytes(16)
  const key = scryptSync(password.normalize("NFKC"), salt, 64, { N: n, r, p })
  return ["scrypt", n, r, p, salt.toString("base64url"), key.toString("base64url")].join("$")
}

/** A small seeded PRNG (mulberry32), so both targets get the very same sequence of moves. */
const prng = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

interface Move {
  readonly from: number
  readonly to: number
  readonly cents: number
}

/** Random sender and recipient (distinct) among `members`, 0.01 to 5.00 hours. */
const planMoves = (count: number, members: number, seed: number): ReadonlyArray<Move> => {
  const random = prng(seed)
  return Array.from({ length: count }, () => {
    const from = Math.floor(random() * members)
    const to = (from + 1 + Math.floor(random() * (members - 1))) % members
    return { from, to, cents: 1 + Math.floor(random() * 500) }
  })
}

interface Outcome extends TimedRun {
  readonly accepted: number
  readonly refused: number
  readonly other: number
}

/** A distinct client address per login: login is limited to 30 a minute per IP (the API trusts X-Forwarded-For). */
const ipOf = (n: number) => `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`

interface BenchTenant {
  readonly id: number
  readonly headers: Record<string, string>
  readonly adminToken: string
}

/** A tenant through the super-admin API, and its admin signed in. */
const tenantWithAdmin = async (client: Client, superToken: string, slug: string): Promise<BenchTenant> => {
  const { admin, headers, id } = await createTenant(client, superToken, slug)
  const { token } = await login(client, headers, admin.email, admin.password, ipOf(2_000_000 + id))
  return { id, headers, adminToken: token }
}

/** Active, approved members written in one statement, all with the same password hash. */
const insertMembers = async (db: pg.Pool, tenantId: number, count: number, passwordHash: string) => {
  const { rows } = await db.query<{ id: string; email: string }>(
    `INSERT INTO users (tenant_id, email, password_hash, first_name, last_name, status, is_approved)
     SELECT $1, 'member' || g || '@bench.test', $2, 'Member', g::text, 'active', true FROM generate_series(1, $3) g
     RETURNING id, email`,
    [tenantId, passwordHash, count]
  )
  const byEmail = new Map(rows.map((r) => [r.email, Number(r.id)]))
  return Array.from(
    { length: count },
    (_, i) => ({ email: `member${i + 1}@bench.test`, id: byEmail.get(`member${i + 1}@bench.test`)! })
  )
}

const grantAll = async (client: Client, tenant: BenchTenant, userIds: ReadonlyArray<number>, hours: number) => {
  await runPool(userIds.length, 50, async (i) => {
    expectStatus(
      "grant",
      await client.send("POST", "/api/v2/admin/wallet/grants", {
        headers: { ...tenant.headers, authorization: `Bearer ${tenant.adminToken}`, "idempotency-key": randomUUID() },
        json: { user_id: userIds[i], amount: hours, reason: "bench funding" }
      }),
      201
    )
  })
}

const verify = async (databaseUrl: string, tenantId: number) => {
  const result = await runNode(
    ["--import", "tsx", "apps/cli/src/main.ts", "ledger", "verify", "--tenant", String(tenantId), "--json"],
    { DATABASE_URL: databaseUrl, LOG_LEVEL: "WARN" }
  )
  let report: { ok?: boolean; transactions?: number; accounts?: number } = {}
  try {
    report = JSON.parse(result.stdout)
  } catch {
    // reported below
  }
  const ok = result.code === 0 && report.ok === true
  if (!ok) {
    console.log(`ledger verify --tenant ${tenantId} failed (exit ${result.code}):\n${result.stdout}${result.stderr}`)
  }
  return { ok, transactions: report.transactions ?? 0, accounts: report.accounts ?? 0 }
}

/** Transfers through the API; tokens[i] belongs to member i. */
const apiRun = async (
  client: Client,
  tenant: BenchTenant,
  members: ReadonlyArray<{ readonly id: number; readonly token: string }>,
  moves: ReadonlyArray<Move>,
  concurrency: number,
  label: string,
  meter: () => (seconds: number) => string
): Promise<Outcome> => {
  const t = tally(["accepted", "refused"])
  const stop = meter()
  const run = await runPool(moves.length, concurrency, async (i) => {
    const move = moves[i]!
    const answer = await client.send("POST", "/api/v2/wallet/transfers", {
      headers: {
        ...tenant.headers,
        authorization: `Bearer ${members[move.from]!.token}`,
        "idempotency-key": randomUUID()
      },
      json: { recipient_id: members[move.to]!.id, amount: move.cents / 100, description: "bench transfer" }
    }).catch((error: unknown): HttpAnswer => ({ status: 0, text: String(error) }))
    if (answer.status === 201) t.counts.accepted++
    else if (answer.status === 422 && answer.text.includes("\"INSUFFICIENT_BALANCE\"")) t.counts.refused++
    else t.other(`${answer.status} ${answer.text.slice(0, 200)}`)
  })
  t.report(label, "unexpected answers")
  return { ...timedRun(label, run, stop(run.seconds)), ...t.counts }
}

const hashOf = (request: object) => createHash("sha256").update(JSON.stringify(request)).digest("hex")

/**
 * The limit: the same transfer as LedgerWriter writes it (same rows, same triggers), one database transaction per
 * transfer, with plain `pg` and prepared statements, no HTTP, no Effect.
 */
const sqlRun = async (
  pool: pg.Pool,
  tenantId: number,
  accounts: ReadonlyArray<{ readonly accountId: string; readonly userId: number }>,
  moves: ReadonlyArray<Move>,
  concurrency: number,
  label: string,
  meter: () => (seconds: number) => string
): Promise<Outcome> => {
  const t = tally(["accepted", "refused"])
  const stop = meter()
  const transfer = async (move: Move): Promise<"accepted" | "refused"> => {
    const from = accounts[move.from]!
    const to = accounts[move.to]!
    const amount = (move.cents / 100).toFixed(2)
    const key = `transfer:${from.userId}:${randomUUID()}`
    const client = await pool.connect()
    try {
      await client.query("BEGIN")
      const locked = await client.query<{ id: string; balance: string }>({
        name: "bench_lock",
        text: "SELECT id, balance FROM ledger_accounts WHERE id = ANY($1::bigint[]) ORDER BY id FOR UPDATE",
        values: [[from.accountId, to.accountId]]
      })
      const balance = Math.round(Number(locked.rows.find((r) => r.id === from.accountId)!.balance) * 100)
      if (balance < move.cents) {
        await client.query("ROLLBACK")
        return "refused"
      }
      const description = "bench transfer"
      const written = await client.query<{ id: string }>({
        name: "bench_transaction",
        text: `INSERT INTO ledger_transactions (tenant_id, type, description, amount, sender_id, recipient_id,
                 listing_id, idempotency_key, request_hash, created_by)
               VALUES ($1, 'transfer', $2, $3, $4, $5, NULL, $6, $7, $4) RETURNING id, created_at`,
        values: [
          tenantId,
          description,
          amount,
          from.userId,
          to.userId,
          key,
          hashOf({ recipient: to.userId, cents: move.cents, description, listingId: null })
        ]
      })
      const transactionId = written.rows[0]!.id
      await client.query({
        name: "bench_entries",
        text: `INSERT INTO ledger_entries (tenant_id, transaction_id, account_id, amount)
               VALUES ($1, $2, $3, $4), ($1, $2, $5, $6)`,
        values: [tenantId, transactionId, from.accountId, `-${amount}`, to.accountId, amount]
      })
      await client.query({
        name: "bench_balances",
        text: `UPDATE ledger_accounts SET balance = balance + d.delta
               FROM (VALUES ($1::bigint, $2::numeric), ($3::bigint, $4::numeric)) AS d(id, delta)
               WHERE ledger_accounts.id = d.id`,
        values: [from.accountId, `-${amount}`, to.accountId, amount]
      })
      await client.query({
        name: "bench_outbox",
        text: "INSERT INTO outbox_events (tenant_id, event_type, payload) VALUES ($1, 'TransactionCompleted', $2)",
        values: [
          tenantId,
          JSON.stringify({
            transaction_id: Number(transactionId),
            type: "transfer",
            amount: move.cents / 100,
            sender_id: from.userId,
            recipient_id: to.userId,
            listing_id: null,
            description
          })
        ]
      })
      await client.query("COMMIT")
      return "accepted"
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {})
      throw error
    } finally {
      client.release()
    }
  }
  const run = await runPool(moves.length, concurrency, async (i) => {
    try {
      t.counts[await transfer(moves[i]!)]++
    } catch (error) {
      t.other(String(error))
    }
  })
  t.report(label, "failed transfers")
  return { ...timedRun(label, run, stop(run.seconds)), ...t.counts }
}

/**
 * With BENCH_SAMPLE_PG=1: samples pg_stat_activity every 50 ms during a run and prints what the connections of
 * `application` were doing (state, wait event, statement), most frequent first — where the time goes.
 */
const activitySampler = (databaseUrl: string, application: string) => {
  if (process.env.BENCH_SAMPLE_PG !== "1") return async () => {}
  const counts = new Map<string, number>()
  let running = true
  const sampler = (async () => {
    const client = new pg.Client({ connectionString: databaseUrl, application_name: "bench-sampler" })
    await client.connect()
    let samples = 0
    while (running) {
      const { rows } = await client.query<{ state: string; wait: string; query: string }>(
        `SELECT state, coalesce(wait_event_type || ':' || wait_event, 'cpu') AS wait,
                regexp_replace(left(query, 70), '\\s+', ' ', 'g') AS query
         FROM pg_stat_activity WHERE application_name = $1`,
        [application]
      )
      for (const r of rows) {
        const key = `${r.state.padEnd(19)} ${r.wait.padEnd(22)} ${r.query}`
        counts.set(key, (counts.get(key) ?? 0) + 1)
      }
      samples++
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    await client.end()
    return samples
  })()
  return async () => {
    running = false
    const samples = await sampler
    console.log(`pg_stat_activity of "${application}" (average connections in each state over ${samples} samples):`)
    for (const [key, n] of [...counts].sort((a, b) => b[1] - a[1]).slice(0, 15)) {
      console.log(`  ${(n / samples).toFixed(2).padStart(6)}  ${key}`)
    }
  }
}

export default async function ledger(): Promise<void> {
  const dropDatabase = await ownDatabase("bench_ledger")
  try {
    await measureLedger()
  } finally {
    await dropDatabase()
  }
}

async function measureLedger(): Promise<void> {
  const s: Settings = settings()
  if (s.members < 2) throw new Error("BENCH_MEMBERS must be at least 2: a transfer needs a sender and a recipient")
  const started = Date.now()
  const scene = await startScene({
    api: { env: { TRUST_PROXY: "true" }, seedDemo: true },
    sockets: s.concurrency,
    pool: { max: s.sqlPool, application_name: "bench-sql" }
  })
  try {
    const { api, client, database, pool, setupStart, superToken } = scene
    const databaseUrl = database.url
    console.log(`API up after ${secondsSince(started, scene.apiUp)} s (database: ${databaseKind()})`)

    // ---- set-up, not measured
    const run = randomBytes(3).toString("hex")
    const ours = await tenantWithAdmin(client, superToken, `bench-api-${run}`)
    const theirs = await tenantWithAdmin(client, superToken, `bench-sql-${run}`)
    const passwordHash = setupHash(MEMBER_PASSWORD)
    const ourMembers = await insertMembers(pool, ours.id, s.members, passwordHash)
    const theirMembers = await insertMembers(pool, theirs.id, s.members, passwordHash)
    const usersDone = Date.now()
    const tokens = new Array<string>(s.members)
    await runPool(s.members, s.loginConcurrency, async (i) => {
      tokens[i] = (await login(client, ours.headers, ourMembers[i]!.email, MEMBER_PASSWORD, ipOf(i + 1))).token
    })
    const loginsDone = Date.now()
    await grantAll(client, ours, ourMembers.map((m) => m.id), s.grantHours)
    await grantAll(client, theirs, theirMembers.map((m) => m.id), s.grantHours)
    const { rows: accountRows } = await pool.query<{ id: string; owner_id: string }>(
      "SELECT id, owner_id FROM ledger_accounts WHERE tenant_id = $1 AND kind = 'member'",
      [theirs.id]
    )
    const accountOf = new Map(accountRows.map((r) => [Number(r.owner_id), r.id]))
    const theirAccounts = theirMembers.map((m) => ({ accountId: accountOf.get(m.id)!, userId: m.id }))
    const setupSeconds = secondsSince(setupStart)
    console.log(
      `set-up ${setupSeconds} s: 2 tenants with ${s.members} members each (users ${
        Math.round((usersDone - setupStart) / 100) / 10
      } s), ${s.members} logins ${Math.round((loginsDone - usersDone) / 100) / 10} s, ${
        2 * s.members
      } grants of ${s.grantHours} h ${Math.round((Date.now() - loginsDone) / 100) / 10} s`
    )

    // ---- measured: the API
    const moves = planMoves(s.warmup + s.transfers, s.members, s.seed)
    const warmupMoves = moves.slice(0, s.warmup)
    const measuredMoves = moves.slice(s.warmup)
    const members = ourMembers.map((m, i) => ({ id: m.id, token: tokens[i]! }))
    const apiPid = api.child.process.pid
    const meterApi = () => cpuMeter(apiPid, database.pid, true)
    const ourWarmup = await apiRun(client, ours, members, warmupMoves, s.concurrency, "warm-up", meterApi)
    const stopApiSampler = activitySampler(databaseUrl, "timebank")
    const stopApiWatch = await watchConnections(databaseUrl)
    const ourResult = await apiRun(
      client,
      ours,
      members,
      measuredMoves,
      s.concurrency,
      "timebank API  POST /api/v2/wallet/transfers",
      meterApi
    )
    await stopApiSampler()
    const apiConnections = await stopApiWatch()
    if (process.env.BENCH_PROBE_WALLET === "1") {
      // The floor of any authenticated route: auth, tenant, one read (same load settings as `npm run bench -- health`).
      const stop = meterApi()
      const probeStart = Date.now()
      const probe = await measure("GET /api/v2/wallet", `${api.base}/api/v2/wallet`, {
        headers: { ...ours.headers, authorization: `Bearer ${members[0]!.token}` }
      })
      console.log(
        `probe GET /api/v2/wallet: ${probe.rps} req/s, p50 ${probe.p50} ms, p99 ${probe.p99} ms, non-2xx ${probe.non2xx}` +
          ` (cpu with the warm-up: ${stop((Date.now() - probeStart) / 1000)})`
      )
    }
    // How far the API's outbox subscribers are behind the events of the run (they share its CPU and database).
    const { rows: lag } = await pool.query<{ subscriber: string; behind: number }>(
      `SELECT c.subscriber, (SELECT count(*)::int FROM outbox_events e WHERE (e.tx_id, e.id) > (c.tx_id, c.event_id))
         AS behind FROM outbox_cursors c ORDER BY c.subscriber`
    )
    client.close()
    // The API's outbox publisher would otherwise work through the baseline's events during the baseline.
    await api.stop()

    const ourVerify = await verify(databaseUrl, ours.id)
    // A writer batch is one database transaction, and its rows share created_at (now() is the transaction's start).
    const { rows: [written] } = await pool.query<{ n: number; batches: number }>(
      `SELECT count(*)::int AS n, count(DISTINCT created_at)::int AS batches FROM ledger_transactions
       WHERE tenant_id = $1 AND type = 'transfer'`,
      [ours.id]
    )

    // ---- measured: the bare SQL script
    const meterSql = () => cpuMeter(undefined, database.pid, true)
    const stopSqlWatch = await watchConnections(databaseUrl)
    const theirWarmup = await sqlRun(pool, theirs.id, theirAccounts, warmupMoves, s.concurrency, "warm-up", meterSql)
    const stopSqlSampler = activitySampler(databaseUrl, "bench-sql")
    const theirResult = await sqlRun(
      pool,
      theirs.id,
      theirAccounts,
      measuredMoves,
      s.concurrency,
      "bare SQL      pg, 1 db transaction per transfer",
      meterSql
    )
    await stopSqlSampler()
    const sqlConnections = await stopSqlWatch()
    await pool.end()
    const theirVerify = await verify(databaseUrl, theirs.id)

    const results = [ourResult, theirResult]
    console.log(
      `\n${s.transfers} transfers (after ${s.warmup} warm-up) among ${s.members} members, ${s.concurrency} in flight` +
        ` (SQL script: ${s.sqlPool} connections);` +
        ` CPU in cores busy (2 = the whole machine)`
    )
    printRows(
      ["target", "transfers/s", "p50 ms", "p99 ms", "accepted", "refused", "other", "seconds", "cpu: cores busy"],
      results.map((r) => [
        r.label,
        perSecond(r),
        r.p50,
        r.p99,
        r.accepted,
        r.refused,
        r.other,
        r.seconds.toFixed(1),
        r.cpu
      ])
    )
    console.log(
      `API writer: ${written!.n} transfers in ${written!.batches} database transactions` +
        ` (${(written!.n / Math.max(1, written!.batches)).toFixed(1)} per group commit)`
    )
    console.log(
      `outbox subscribers behind when the API run ended: ${
        lag.map((l) => `${l.subscriber} ${l.behind} events`).join(", ") || "none"
      }`
    )
    console.log(
      `ledger verify: API tenant ${ourVerify.ok ? "ok" : "FAILED"} (${ourVerify.transactions} transactions),` +
        ` SQL tenant ${theirVerify.ok ? "ok" : "FAILED"} (${theirVerify.transactions} transactions);` +
        ` total ${secondsSince(started)} s`
    )
    console.log(
      `database connections at most: ${apiConnections.peak} during the API run, ${sqlConnections.peak} during the` +
        ` SQL script (pool of ${s.sqlPool}); max_connections ${sqlConnections.max}`
    )
    const expectedTransfers = ourWarmup.accepted + ourResult.accepted
    const checks = {
      ledger_verify_ok: ourVerify.ok,
      non_2xx_other: ourWarmup.other + ourResult.other,
      accepted: ourResult.accepted,
      refused_insufficient: ourResult.refused,
      transfers_written_match: written!.n === expectedTransfers,
      baseline_ledger_verify_ok: theirVerify.ok,
      baseline_failed: theirWarmup.other + theirResult.other,
      baseline_accepted: theirResult.accepted,
      baseline_refused_insufficient: theirResult.refused,
      baseline_pool: s.sqlPool,
      peak_connections: Math.max(apiConnections.peak, sqlConnections.peak),
      max_connections: sqlConnections.max,
      connections_within_limit: Math.max(apiConnections.peak, sqlConnections.peak) <= sqlConnections.max,
      // After-the-response work (bells, e-mails, points, webhooks) the API had not caught up with at the end.
      subscribers_behind_max: Math.max(0, ...lag.map((l) => Number(l.behind))),
      setup_seconds: setupSeconds
    }
    const clean = checks.ledger_verify_ok && checks.non_2xx_other === 0 && checks.transfers_written_match &&
      checks.baseline_ledger_verify_ok && checks.baseline_failed === 0 && checks.connections_within_limit
    printResult("ledger", perSecond(ourResult), perSecond(theirResult), { ...checks, clean }, "transfers/s")
    if (!clean) process.exitCode = 1
  } finally {
    await scene.close()
  }
}
