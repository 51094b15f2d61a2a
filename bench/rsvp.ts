// RSVPs to one full-ish event: our API (HTTP → Event entity: decided one at a time, written in batches) against a bare SQL
// script doing the equivalent transaction directly on PostgreSQL (lock the event row, count who is going, insert the
// RSVP or the waitlist row), one database transaction per RSVP, on the same database.
//
// Set-up (not measured): one PostgreSQL (embedded in a temp dir, or a new database on the DATABASE_URL server, dropped
// at the end); a tenant made through the super-admin API; BENCH_MEMBERS members written straight to the database with a session and an access token each,
// made and stored as a login does (the server's own token functions: only the SHA-256 is stored), so no scrypt login
// is needed; two events with BENCH_PLACES places and a warm-up event. Measured: one `going` RSVP per member with
// BENCH_CONCURRENCY in flight — first through the API on the first event, then, with the API stopped (its outbox
// publisher would otherwise run during the script), through the script on the second event. Both runs are checked:
// exactly BENCH_PLACES going, the rest waiting with dense positions 1..n, in the answers and in the database.
// The script holds at most BENCH_SQL_POOL connections: the bench fails (a check false, exit code 1) when either run
// is not exact, when the script failed an RSVP, or when the server's connections ever passed its max_connections.
import { randomBytes } from "node:crypto"
import pg from "pg"
import {
  ACCESS_TOKEN_SECONDS,
  hashToken,
  newToken,
  REFRESH_TOKEN_SECONDS
} from "../packages/server/src/identity/Tokens.js"
import {
  type Client,
  cpuMeter,
  databaseKind,
  envInt,
  type HttpAnswer,
  perSecond,
  printResult,
  printRows,
  runPool,
  secondsSince,
  tally,
  type TimedRun,
  timedRun
} from "./lib.js"
import { ownDatabase, watchConnections } from "./servers/bareLib.js"
import { createTenant, startScene } from "./setup.js"

const settings = () => ({
  members: envInt("BENCH_MEMBERS", 2_000),
  places: envInt("BENCH_PLACES", 100),
  concurrency: envInt("BENCH_CONCURRENCY", 100),
  /** Connections of the SQL script (the API's own pool is DB_POOL_SIZE, 10 by default). */
  sqlPool: envInt("BENCH_SQL_POOL", 20),
  warmup: envInt("BENCH_WARMUP_RSVPS", 200)
})

/** Active, approved members with a session and an access token each, in three statements. */
const insertSignedInMembers = async (db: pg.Pool, tenantId: number, count: number) => {
  const { rows } = await db.query<{ id: string; session_id: string }>(
    `WITH u AS (
       INSERT INTO users (tenant_id, email, first_name, last_name, status, is_approved)
       SELECT $1, 'member' || g || '@bench.test', 'Member', g::text, 'active', true FROM generate_series(1, $2) g
       RETURNING id
     ), s AS (
       INSERT INTO auth_sessions (tenant_id, user_id, kind, expires_at)
       SELECT $1, id, 'login', now() + make_interval(secs => $3) FROM u RETURNING id, user_id
     )
     SELECT u.id, s.id AS session_id FROM u JOIN s ON s.user_id = u.id ORDER BY u.id`,
    [tenantId, count, REFRESH_TOKEN_SECONDS]
  )
  const tokens = rows.map(() => newToken())
  await db.query(
    `INSERT INTO access_tokens (token_hash, session_id, expires_at)
     SELECT h, s, now() + make_interval(secs => $3) FROM unnest($1::text[], $2::bigint[]) AS t(h, s)`,
    [tokens.map(hashToken), rows.map((r) => r.session_id), ACCESS_TOKEN_SECONDS]
  )
  return rows.map((r, i) => ({ id: Number(r.id), token: tokens[i]! }))
}

const insertEvent = async (db: pg.Pool, tenantId: number, organiserId: number, places: number, title: string) => {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO events (tenant_id, user_id, title, description, start_time, end_time, max_attendees)
     VALUES ($1, $2, $3, 'Benchmark event', now() + interval '2 days', now() + interval '2 days 2 hours', $4)
     RETURNING id`,
    [tenantId, organiserId, title, places]
  )
  return Number(rows[0]!.id)
}

interface Outcome extends TimedRun {
  readonly going: number
  readonly waitlisted: number
  readonly positions: ReadonlyArray<number>
  readonly other: number
}

/** Counts answers: going, waitlisted (with the positions given), other. */
const rsvpTally = () => {
  const t = tally(["going", "waitlisted"])
  const positions: Array<number> = []
  return {
    ...t,
    positions,
    record: (status: string, position: number | undefined, raw: string) => {
      if (status === "going") t.counts.going++
      else if (status === "waitlisted" && position !== undefined) {
        t.counts.waitlisted++
        positions.push(position)
      } else {
        t.other(raw.slice(0, 200))
      }
    }
  }
}

/** The outcome of a run from its tally; prints a few samples of what went wrong, if anything did. */
const outcome = (
  label: string,
  failures: string,
  t: ReturnType<typeof rsvpTally>,
  run: { readonly latencies: Float64Array; readonly seconds: number },
  stop: (seconds: number) => string
): Outcome => {
  t.report(label, failures)
  return { ...timedRun(label, run, stop(run.seconds)), ...t.counts, positions: t.positions }
}

/** One `going` RSVP per member through the API. */
const apiRun = async (
  client: Client,
  headers: Record<string, string>,
  eventId: number,
  members: ReadonlyArray<{ readonly token: string }>,
  concurrency: number,
  label: string,
  meter: () => (seconds: number) => string
): Promise<Outcome> => {
  const t = rsvpTally()
  const stop = meter()
  const run = await runPool(members.length, concurrency, async (i) => {
    const answer = await client.send("POST", `/api/v2/events/${eventId}/rsvp`, {
      headers: { ...headers, authorization: `Bearer ${members[i]!.token}` },
      json: { status: "going" }
    }).catch((error: unknown): HttpAnswer => ({ status: 0, text: String(error) }))
    if (answer.status !== 200) return t.record("error", undefined, `${answer.status} ${answer.text}`)
    const { data } = JSON.parse(answer.text) as { data: { status: string; waitlist_position?: number } }
    t.record(data.status, data.waitlist_position, answer.text)
  })
  return outcome(label, "unexpected answers", t, run, stop)
}

/**
 * The limit: the same decision as one database transaction per RSVP, with plain `pg` and prepared statements, no HTTP,
 * no Effect, no cluster — lock the event row (serialising RSVPs of one event), count who is going, then either insert
 * the RSVP and its RsvpChanged outbox row (as the entity writes them) or the waitlist row and read its position.
 */
const sqlRun = async (
  db: pg.Pool,
  tenantId: number,
  eventId: number,
  memberIds: ReadonlyArray<number>,
  concurrency: number,
  label: string,
  meter: () => (seconds: number) => string
): Promise<Outcome> => {
  const t = rsvpTally()
  const stop = meter()
  const rsvp = async (userId: number) => {
    const client = await db.connect()
    try {
      await client.query("BEGIN")
      const { rows: [event] } = await client.query<{ max_attendees: number; title: string; user_id: string }>({
        name: "rsvp_lock",
        text: "SELECT max_attendees, title, user_id FROM events WHERE tenant_id = $1 AND id = $2 FOR UPDATE",
        values: [tenantId, eventId]
      })
      const { rows: [going] } = await client.query<{ n: number }>({
        name: "rsvp_count",
        text: "SELECT count(*)::int AS n FROM event_rsvps WHERE event_id = $1 AND status IN ('going', 'attended')",
        values: [eventId]
      })
      if (going!.n < event!.max_attendees) {
        await client.query({
          name: "rsvp_insert",
          text: `INSERT INTO event_rsvps (tenant_id, event_id, user_id, status) VALUES ($1, $2, $3, 'going')
                 ON CONFLICT (event_id, user_id) DO UPDATE SET status = 'going', updated_at = now()`,
          values: [tenantId, eventId, userId]
        })
        await client.query({
          name: "rsvp_outbox",
          text: "INSERT INTO outbox_events (tenant_id, event_type, payload) VALUES ($1, 'RsvpChanged', $2)",
          values: [
            tenantId,
            JSON.stringify({
              event_id: eventId,
              event_title: event!.title,
              organiser_id: Number(event!.user_id),
              user_id: userId,
              from: null,
              to: "going"
            })
          ]
        })
        await client.query("COMMIT")
        t.record("going", undefined, "")
        return
      }
      const { rows: [position] } = await client.query<{ position: number }>({
        name: "rsvp_wait",
        text: `WITH w AS (
                 INSERT INTO event_waitlist (tenant_id, event_id, user_id) VALUES ($1, $2, $3)
                 ON CONFLICT (event_id, user_id) DO UPDATE SET status = 'waiting' RETURNING id
               )
               SELECT 1 + (SELECT count(*)::int FROM event_waitlist e WHERE e.event_id = $2 AND e.id < w.id) AS position
               FROM w`,
        values: [tenantId, eventId, userId]
      })
      await client.query("COMMIT")
      t.record("waitlisted", position!.position, "")
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {})
      t.record("error", undefined, String(error))
    } finally {
      client.release()
    }
  }
  const run = await runPool(memberIds.length, concurrency, (i) => rsvp(memberIds[i]!))
  return outcome(label, "failed RSVPs", t, run, stop)
}

/** Going and waitlist as the database holds them after a run, and whether the answers agree with it. */
const databaseCheck = async (db: pg.Pool, eventId: number, outcome: Outcome, places: number, members: number) => {
  const { rows: [counts] } = await db.query<{ going: number; other: number; waiting: number }>(
    `SELECT (SELECT count(*)::int FROM event_rsvps WHERE event_id = $1 AND status = 'going') AS going,
            (SELECT count(*)::int FROM event_rsvps WHERE event_id = $1 AND status <> 'going') AS other,
            (SELECT count(*)::int FROM event_waitlist WHERE event_id = $1) AS waiting`,
    [eventId]
  )
  const sorted = [...outcome.positions].sort((a, b) => a - b)
  const waitlisted = members - places
  const dense = sorted.length === waitlisted && sorted.every((p, i) => p === i + 1)
  return {
    going: counts!.going,
    waitlisted: counts!.waiting,
    answers_agree: outcome.going === counts!.going && outcome.waitlisted === counts!.waiting && counts!.other === 0,
    positions_dense: dense
  }
}

export default async function rsvp(): Promise<void> {
  const dropDatabase = await ownDatabase("bench_rsvp")
  try {
    await measureRsvp()
  } finally {
    await dropDatabase()
  }
}

async function measureRsvp(): Promise<void> {
  const s = settings()
  if (s.members <= s.places) throw new Error("BENCH_MEMBERS must exceed BENCH_PLACES, or nobody waits")
  const started = Date.now()
  const scene = await startScene({
    api: { env: { TRUST_PROXY: "true" } },
    sockets: s.concurrency,
    pool: { max: s.sqlPool, application_name: "bench-sql" }
  })
  try {
    const { api, client, database, pool } = scene
    console.log(`API up after ${secondsSince(started, scene.apiUp)} s (database: ${databaseKind()})`)

    // ---- set-up, not measured
    const tenantId = (await createTenant(client, scene.superToken, `bench-rsvp-${randomBytes(3).toString("hex")}`)).id
    const headers = { "x-tenant-id": String(tenantId) }
    // One organiser, who does not RSVP, and BENCH_MEMBERS members who do, once each.
    const [organiser, ...rsvpers] = await insertSignedInMembers(pool, tenantId, s.members + 1)
    const warmupEvent = await insertEvent(pool, tenantId, organiser!.id, s.places, "Warm-up")
    const ourEvent = await insertEvent(pool, tenantId, organiser!.id, s.places, "Through the API")
    const theirEvent = await insertEvent(pool, tenantId, organiser!.id, s.places, "Through bare SQL")
    const setupSeconds = secondsSince(scene.setupStart)
    console.log(
      `set-up ${setupSeconds} s: 1 tenant, ${s.members + 1} signed-in members, 3 events of ${s.places} places`
    )

    // ---- measured: the API
    const apiPid = api.child.process.pid
    await apiRun(client, headers, warmupEvent, rsvpers.slice(0, s.warmup), s.concurrency, "warm-up", () => () => "")
    const stopApiWatch = await watchConnections(database.url)
    const ours = await apiRun(
      client,
      headers,
      ourEvent,
      rsvpers,
      s.concurrency,
      "timebank API  POST /api/v2/events/{id}/rsvp",
      () => cpuMeter(apiPid, database.pid)
    )
    const apiConnections = await stopApiWatch()
    // The API's outbox publisher would otherwise run during the script.
    client.close()
    await api.stop()
    const ourCheck = await databaseCheck(pool, ourEvent, ours, s.places, s.members)

    // ---- measured: the bare SQL script
    const stopSqlWatch = await watchConnections(database.url)
    const theirs = await sqlRun(
      pool,
      tenantId,
      theirEvent,
      rsvpers.map((m) => m.id),
      s.concurrency,
      "bare SQL      pg, 1 db transaction per RSVP",
      () => cpuMeter(undefined, database.pid)
    )
    const sqlConnections = await stopSqlWatch()
    const theirCheck = await databaseCheck(pool, theirEvent, theirs, s.places, s.members)

    console.log(
      `\n${s.members} going RSVPs (one per member) to one event of ${s.places} places, ${s.concurrency} in flight` +
        ` (SQL script: ${s.sqlPool} connections);` +
        ` CPU in cores busy (2 = the whole machine)`
    )
    printRows(
      ["target", "RSVP/s", "p50 ms", "p99 ms", "going", "waitlisted", "other", "dense 1..n", "seconds", "cpu"],
      [ours, theirs].map((o, i) => {
        const check = i === 0 ? ourCheck : theirCheck
        return [
          o.label,
          perSecond(o),
          o.p50,
          o.p99,
          check.going,
          check.waitlisted,
          o.other,
          check.positions_dense,
          o.seconds.toFixed(1),
          o.cpu
        ]
      })
    )
    console.log(
      `answers agree with the database: API ${ourCheck.answers_agree}, SQL ${theirCheck.answers_agree}; total ${
        secondsSince(started)
      } s`
    )
    console.log(
      `database connections at most: ${apiConnections.peak} during the API run, ${sqlConnections.peak} during the` +
        ` SQL script (pool of ${s.sqlPool}); max_connections ${sqlConnections.max}`
    )
    const peak = Math.max(apiConnections.peak, sqlConnections.peak)
    const exact = (check: typeof ourCheck) =>
      check.going === s.places && check.waitlisted === s.members - s.places && check.positions_dense &&
      check.answers_agree
    const clean = exact(ourCheck) && ours.other === 0 && exact(theirCheck) && theirs.other === 0 &&
      peak <= sqlConnections.max
    printResult("rsvp", perSecond(ours), perSecond(theirs), {
      going: ourCheck.going,
      waitlisted: ourCheck.waitlisted,
      positions_dense: ourCheck.positions_dense,
      answers_agree: ourCheck.answers_agree,
      other: ours.other,
      p50_ms: ours.p50,
      p99_ms: ours.p99,
      baseline_going: theirCheck.going,
      baseline_waitlisted: theirCheck.waitlisted,
      baseline_positions_dense: theirCheck.positions_dense,
      baseline_answers_agree: theirCheck.answers_agree,
      baseline_failed: theirs.other,
      baseline_pool: s.sqlPool,
      peak_connections: peak,
      max_connections: sqlConnections.max,
      connections_within_limit: peak <= sqlConnections.max,
      clean,
      baseline_p50_ms: theirs.p50,
      baseline_p99_ms: theirs.p99,
      setup_seconds: setupSeconds
    })
    if (!clean) process.exitCode = 1
  } finally {
    await scene.close()
  }
}
