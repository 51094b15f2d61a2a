// Fan-out of one event cancellation to BENCH_ATTENDEES members (default 10,000): the organiser's
// `POST /api/v2/events/{id}/cancel` answers, then the notifications-dispatch outbox subscriber (in the API process,
// OUTBOX_POLL_INTERVAL at its default) writes one bell and one instant e-mail queue row per attendee. Measured per
// event: the cancel's HTTP latency, and the time from sending the cancel until every bell and queue row of the
// event's link exists (polled in the database). Baseline, in the same run on the same database: a bare
// `INSERT INTO notifications … SELECT … FROM event_rsvps` with its `notification_email_queue` rows (one statement,
// plain pg, the texts our run wrote) for an event of its own with the same attendees.
//
// Set-up (not measured): one PostgreSQL (embedded in a temp dir, or DATABASE_URL); a tenant made through the
// super-admin API, whose admin signs in and organises the events (created through the API); the attendees written
// straight to the database with generate_series — going, interested, invited and waitlisted, in four languages —
// plus bystanders (not going, declined, attended) who must hear nothing, and the organiser going to their own event.
// Every measurement starts quiet: the API sends the e-mails (.eml files in a temp DATA_DIR) for BENCH_MAIL_WINDOW
// seconds (the rate is reported), then the bench marks the rest failed so that the mailer idles. BENCH_EVENTS events
// are measured each way (default 3), after a warm-up cancel of a small event. Checks: the cancel answers within
// 150 ms and all rows exist within 10 s (worst event); each attendee has exactly one bell and one instant e-mail
// row tied to it, nobody else (bystanders, organiser) has any. BENCH_API_NODE_FLAGS adds node flags to the API,
// e.g. "--cpu-prof --cpu-prof-dir=/tmp/p".
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { cpus, loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { setTimeout as sleep } from "node:timers/promises"
import pg from "pg"
import {
  type Client,
  cpuSeconds,
  databaseKind,
  envInt,
  expectStatus,
  now,
  percentile,
  printResult,
  printRows,
  secondsSince
} from "./lib.js"
import { createTenant, login, type Scene, startScene } from "./setup.js"

const settings = () => ({
  attendees: envInt("BENCH_ATTENDEES", 10_000),
  bystanders: envInt("BENCH_BYSTANDERS", 300),
  events: envInt("BENCH_EVENTS", 3),
  /** How long to wait for a fan-out before giving up on it. */
  waitSeconds: envInt("BENCH_WAIT_SECONDS", 60),
  /** Seconds to watch the API send a fan-out's e-mails before the rest are set aside. */
  mailWindow: envInt("BENCH_MAIL_WINDOW", 5)
})

const CANCEL_LIMIT_MS = 150
const FANOUT_LIMIT_MS = 10_000
const LANGUAGES = ["en", "de", "fr", "es"]

type Ids = ReadonlyArray<number>
type BenchEvent = { readonly id: number; readonly link: string }
/** Where a run writes: the API (as the organiser) and the database, in one community. */
interface Community {
  readonly client: Client
  readonly db: pg.Pool
  readonly tenantId: number
  readonly headers: Record<string, string>
}

/** Every request from an address of its own, so that no per-IP limit (event create: 10 a minute) refuses set-up. */
let ipCounter = 0
const nextIp = () => `10.7.${(++ipCounter >> 8) & 255}.${ipCounter & 255}`

/** A tenant through the super-admin API; its admin (the organiser) signed in. */
const communityWithOrganiser = async (client: Client, superToken: string) => {
  const slug = `bench-fan-${randomBytes(3).toString("hex")}`
  const tenant = await createTenant(client, superToken, slug, {
    email: `organiser@${slug}.bench.test`,
    first_name: "Olga",
    last_name: "Organiser"
  })
  const { token } = await login(client, tenant.headers, tenant.admin.email, tenant.admin.password, nextIp())
  return { tenantId: tenant.id, headers: { ...tenant.headers, authorization: `Bearer ${token}` } }
}

/** Attendees first (ids ascending), then bystanders; languages cycle through the four shipped ones. */
const seedUsers = async (db: pg.Pool, tenantId: number, label: string, count: number) =>
  (await db.query<{ id: string }>(
    `INSERT INTO users (tenant_id, email, first_name, last_name, status, is_approved, preferred_language)
     SELECT $1, $2 || g || '@bench.test', initcap($2), g::text, 'active', true, ($4::text[])[1 + g % 4]
     FROM generate_series(1, $3) g ORDER BY g RETURNING id`,
    [tenantId, label, count, LANGUAGES]
  )).rows.map((r) => Number(r.id))

/**
 * An upcoming event organised through the API, with the attendees' answers written straight to the database: of
 * every 20 attendees one waits, one is interested, one invited and the rest go (places = those going); the
 * bystanders do not go, declined or attended; the organiser goes too.
 */
const eventWithAttendees = async (
  { client, db, headers, tenantId }: Community,
  people: { readonly organiserId: number; readonly attendees: Ids; readonly bystanders: Ids },
  title: string
) => {
  const going = people.attendees.filter((_, i) => (i + 1) % 20 > 2).length
  const created = expectStatus(
    `create event ${title}`,
    await client.send("POST", "/api/v2/events", {
      headers: { ...headers, "x-forwarded-for": nextIp() },
      json: {
        title,
        description: "A benchmark event that will be called off.",
        start_time: new Date(Date.now() + 3 * 86_400_000).toISOString(),
        end_time: new Date(Date.now() + 3 * 86_400_000 + 7_200_000).toISOString(),
        location: "Town hall",
        max_attendees: going + 1
      }
    }),
    201
  ) as { data: { id: number } }
  const eventId = created.data.id
  await db.query(
    `INSERT INTO event_rsvps (tenant_id, event_id, user_id, status)
     SELECT $1::bigint, $2::bigint, a.id, CASE a.n % 20 WHEN 1 THEN 'interested' WHEN 2 THEN 'invited' ELSE 'going' END
     FROM unnest($3::bigint[]) WITH ORDINALITY AS a (id, n) WHERE a.n % 20 <> 0
     UNION ALL
     SELECT $1, $2, b.id, (ARRAY['not_going', 'declined', 'attended'])[1 + b.n % 3]
     FROM unnest($4::bigint[]) WITH ORDINALITY AS b (id, n)
     UNION ALL SELECT $1, $2, $5::bigint, 'going'`,
    [tenantId, eventId, people.attendees, people.bystanders, people.organiserId]
  )
  await db.query(
    `INSERT INTO event_waitlist (tenant_id, event_id, user_id)
     SELECT $1, $2, a.id FROM unnest($3::bigint[]) WITH ORDINALITY AS a (id, n) WHERE a.n % 20 = 0 ORDER BY a.n`,
    [tenantId, eventId, people.attendees]
  )
  return { id: eventId, link: `/events/${eventId}` }
}

/**
 * When all `expected` bells and queue rows of `link` exist (NaN: not by `deadline`). Until the bell of `probeUser` shows
 * up, each poll is one cheap index probe, so that polling takes little from the database it watches.
 */
const waitForRows = async (
  { db, tenantId }: Community,
  link: string,
  probeUser: number,
  expected: number,
  deadline: number
) => {
  let seen = false
  while (now() < deadline) {
    if (!seen) {
      const { rows: [probe] } = await db.query<{ found: boolean }>(
        `SELECT EXISTS (SELECT 1 FROM notifications WHERE tenant_id = $1 AND user_id = $2 AND link = $3) AS found`,
        [tenantId, probeUser, link]
      )
      seen = probe!.found
    }
    if (seen) {
      const at = now()
      const { rows: [row] } = await db.query<{ bells: number; emails: number }>(
        `SELECT (SELECT count(*)::int FROM notifications WHERE tenant_id = $1 AND link = $2) AS bells,
                (SELECT count(*)::int FROM notification_email_queue WHERE tenant_id = $1 AND link = $2) AS emails`,
        [tenantId, link]
      )
      if (row!.bells >= expected && row!.emails >= expected) return at
      await sleep(20)
    } else {
      await sleep(5)
    }
  }
  return Number.NaN
}

/**
 * How many of the e-mails of `link` the API sends in `seconds` (per second); then the rest are set aside (failed,
 * not sent), so that the next measurement starts without the mailer still working through this one.
 */
const mailRate = async ({ db, tenantId }: Community, link: string, seconds: number) => {
  await sleep(seconds * 1000)
  const { rows: [row] } = await db.query<{ sent: number }>(
    `SELECT count(*)::int AS sent FROM notification_email_queue WHERE tenant_id = $1 AND link = $2 AND status = 'sent'`,
    [tenantId, link]
  )
  await db.query(
    `UPDATE notification_email_queue SET status = 'failed', last_error = 'set aside by the benchmark'
     WHERE tenant_id = $1 AND link = $2 AND status = 'pending'`,
    [tenantId, link]
  )
  return row!.sent / seconds
}

/** The rows of one fan-out against who should have them: each attendee exactly once, nobody else. */
const verdict = async ({ db, tenantId }: Community, link: string, attendees: Ids, organiserId: number) => {
  const tally = async (table: string) => {
    const { rows: [row] } = await db.query<{ total: number; people: number; attendees: number; organiser: number }>(
      `SELECT count(*)::int AS total, count(DISTINCT user_id)::int AS people,
              count(DISTINCT user_id) FILTER (WHERE user_id = ANY($3::bigint[]))::int AS attendees,
              count(*) FILTER (WHERE user_id = $4)::int AS organiser
       FROM ${table} WHERE tenant_id = $1 AND link = $2`,
      [tenantId, link, attendees, organiserId]
    )
    return row!
  }
  const bells = await tally("notifications")
  const emails = await tally("notification_email_queue")
  const { rows: [linked] } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM notification_email_queue q JOIN notifications b ON b.id = q.notification_id
     WHERE q.tenant_id = $1 AND q.link = $2 AND b.user_id = q.user_id AND q.frequency = 'instant'`,
    [tenantId, link]
  )
  const exact = (t: typeof bells) =>
    t.total === attendees.length && t.attendees === attendees.length && t.organiser === 0
  return {
    bells: bells.total,
    emails: emails.total,
    bellsExact: exact(bells),
    emailsExact: exact(emails) && linked!.n === attendees.length,
    noDuplicates: bells.total === bells.people && emails.total === emails.people
  }
}

/** Where the time went, from the database's clock: the outbox row and the dispatch transaction's start. */
const timeline = async ({ db, tenantId }: Community, eventId: number, link: string, sentAtWall: number) => {
  const { rows: [row] } = await db.query<{ outbox: Date | null; dispatch: Date | null }>(
    `SELECT (SELECT max(created_at) FROM outbox_events
             WHERE tenant_id = $1 AND event_type = 'EventCancelled' AND (payload->>'event_id')::bigint = $2) AS outbox,
            (SELECT min(created_at) FROM notifications WHERE tenant_id = $1 AND link = $3) AS dispatch`,
    [tenantId, eventId, link]
  )
  const offset = (at: Date | null | undefined) => (at ? at.getTime() - sentAtWall : Number.NaN)
  return { outboxMs: offset(row?.outbox), dispatchMs: offset(row?.dispatch) }
}

interface Measured {
  readonly label: string
  readonly cancelMs?: number
  readonly outboxMs?: number
  readonly dispatchMs?: number
  readonly fanoutMs: number
  readonly mailPerSecond: number
  /** CPU ms of the API / of PostgreSQL (embedded only) during the cancel, and until all rows existed. */
  readonly cancelCpu?: string
  readonly fanoutCpu: string
  readonly verdict: Awaited<ReturnType<typeof verdict>>
}

const COLUMNS =
  "target|cancel ms|outbox row|dispatch start|all rows ms|bells|e-mails|exact|mail/s|cpu cancel|cpu all rows"
    .split("|")
const TEXT_COLUMNS = ["language", "title", "message", "category"] as const

const round = (value: number) => Math.round(value * 10) / 10
const show = (value: number | undefined) => (value === undefined || Number.isNaN(value) ? "-" : round(value))
const median = (values: ReadonlyArray<number>) => percentile(Float64Array.from(values).sort(), 50)

export default async function fanout(): Promise<void> {
  const s = settings()
  const started = Date.now()
  const dataDir = mkdtempSync(join(tmpdir(), "timebank-bench-fanout-"))
  let scene: Scene | undefined
  try {
    scene = await startScene({
      api: { env: { DATA_DIR: dataDir, TRUST_PROXY: "true" } },
      sockets: 4,
      pool: { max: 4, application_name: "bench-fanout" }
    })
    const { api, client, database, pool, superToken } = scene

    // ---- set-up, not measured
    const { headers, tenantId } = await communityWithOrganiser(client, superToken)
    const community: Community = { client, db: pool, tenantId, headers }
    const organiserId = Number(
      (await pool.query<{ id: string }>(`SELECT id FROM users WHERE tenant_id = $1 AND role = 'admin'`, [tenantId]))
        .rows[0]!.id
    )
    const attendees = await seedUsers(pool, tenantId, "attendee", s.attendees)
    const bystanders = await seedUsers(pool, tenantId, "bystander", s.bystanders)
    const people = { organiserId, attendees, bystanders }
    const warmup = await eventWithAttendees(community, { ...people, attendees: attendees.slice(0, 100) }, "Warm-up")
    const ourEvents = []
    const bareEvents = []
    for (let i = 1; i <= s.events; i++) {
      ourEvents.push(await eventWithAttendees(community, people, `Cancelled through the API ${i}`))
      bareEvents.push(await eventWithAttendees(community, people, `Written by bare SQL ${i}`))
    }
    for (const table of ["users", "event_rsvps", "event_waitlist"]) await pool.query(`ANALYZE ${table}`)
    const setupSeconds = secondsSince(scene.setupStart)
    console.log(
      `set-up ${setupSeconds} s: ${s.attendees} attendees + ${s.bystanders} bystanders, ${2 * s.events + 1} events ` +
        `(database: ${databaseKind()})`
    )

    const cancel = async (event: BenchEvent, label: string, expected: number, probeUser: number): Promise<Measured> => {
      const cpuAtStart = cpu()
      const sentAtWall = Date.now()
      const start = now()
      const answer = await client.send("POST", `/api/v2/events/${event.id}/cancel`, {
        headers,
        json: { reason: "The hall is flooded" }
      })
      const cancelMs = now() - start
      const cancelCpu = cpuSince(cpuAtStart)
      expectStatus(`cancel ${label}`, answer, 200)
      const fanoutMs = await waitForRows(community, event.link, probeUser, expected, start + s.waitSeconds * 1000) -
        start
      const fanoutCpu = cpuSince(cpuAtStart)
      const times = await timeline(community, event.id, event.link, sentAtWall)
      const mailPerSecond = await mailRate(community, event.link, s.mailWindow)
      const result = await verdict(community, event.link, attendees.slice(0, expected), organiserId)
      return { label, cancelMs, fanoutMs, ...times, mailPerSecond, cancelCpu, fanoutCpu, verdict: result }
    }

    const apiPid = api.child.process.pid
    const cpu = () => ({ api: cpuSeconds(apiPid), pg: cpuSeconds(database.pid, true) })
    const cpuSince = (from: ReturnType<typeof cpu>) => {
      const to = cpu()
      const pgMs = database.pid === undefined ? "-" : Math.round((to.pg - from.pg) * 1000)
      return `${Math.round((to.api - from.api) * 1000)}/${pgMs}`
    }

    // ---- warm-up (JIT, connections, the event entity's shard), not measured
    const warm = await cancel(warmup, "warm-up", 100, attendees[99]!)
    console.log(`warm-up: cancel ${show(warm.cancelMs)} ms, fan-out of 100 ${round(warm.fanoutMs)} ms`)

    // Texts as our run wrote them, one per language, for the baseline to write the same rows.
    const { rows: texts } = await pool.query<{ language: string; title: string; message: string; category: string }>(
      `SELECT DISTINCT ON (u.preferred_language) u.preferred_language AS language, n.title, n.message, n.category
       FROM notifications n JOIN users u ON u.id = n.user_id WHERE n.tenant_id = $1 AND n.link = $2`,
      [tenantId, warmup.link]
    )

    /** The limit: the same rows in one bare statement over the event's answers and waitlist, plain pg. */
    const bare = async (event: BenchEvent, label: string): Promise<Measured> => {
      const cpuAtStart = cpu()
      const start = now()
      await pool.query(
        `WITH recipients AS (
           SELECT user_id FROM event_rsvps WHERE tenant_id = $1 AND event_id = $2
             AND status IN ('going', 'interested', 'invited') AND user_id <> $3
           UNION
           SELECT user_id FROM event_waitlist WHERE tenant_id = $1 AND event_id = $2 AND user_id <> $3
         ),
         texts AS (SELECT * FROM unnest($4::text[], $5::text[], $6::text[], $7::text[]) AS t (language, title, body,
                                                                                                category)),
         bells AS (
           INSERT INTO notifications (tenant_id, user_id, type, category, title, message, link, actor_id, group_key,
                                      source_key)
           SELECT $1, r.user_id, 'event_cancelled', t.category, t.title, t.body, $8, $3, 'event_cancelled:' || $8,
                  'bare-' || $2 || ':event_cancelled'
           FROM recipients r JOIN users u ON u.id = r.user_id JOIN texts t ON t.language = u.preferred_language
           RETURNING id, user_id, category, title, message
         )
         INSERT INTO notification_email_queue (tenant_id, user_id, notification_id, activity_type, category,
           content_snippet, subject, email_body, link, frequency, source_key)
         SELECT $1, b.user_id, b.id, 'event_cancelled', b.category, left(b.message, 200), b.title, b.message, $8,
                'instant', 'bare-' || $2 || ':event_cancelled'
         FROM bells b`,
        [tenantId, event.id, organiserId, ...TEXT_COLUMNS.map((column) => texts.map((t) => t[column])), event.link]
      )
      const fanoutMs = now() - start
      const fanoutCpu = cpuSince(cpuAtStart)
      const mailPerSecond = await mailRate(community, event.link, s.mailWindow)
      const result = await verdict(community, event.link, attendees, organiserId)
      return { label, fanoutMs, mailPerSecond, fanoutCpu, verdict: result }
    }

    // ---- measured: ours and the baseline, alternately, each starting with the previous e-mails sent
    const ours: Array<Measured> = []
    const theirs: Array<Measured> = []
    for (let i = 0; i < s.events; i++) {
      ours.push(await cancel(ourEvents[i]!, `timebank API  cancel ${i + 1}`, s.attendees, attendees.at(-1)!))
      theirs.push(await bare(bareEvents[i]!, `bare SQL      INSERT … SELECT ${i + 1}`))
    }

    console.log(
      `\n${s.attendees} attendees per event (going, interested, invited, waitlisted), ${s.bystanders} bystanders; ` +
        `times in ms from sending the cancel (outbox row, dispatch start: the database's clock); cpu: ms used by ` +
        `the API / PostgreSQL (embedded only) meanwhile; mail/s: e-mails of it the API sent in the ${s.mailWindow} s ` +
        `after (the rest then set aside); total ${Math.round((Date.now() - started) / 1000)} s; load average ` +
        `${loadavg().map((l) => l.toFixed(1)).join(" ")} on ${cpus().length} CPUs`
    )
    printRows(
      COLUMNS,
      [...ours, ...theirs].map((m) => [
        m.label,
        ...[m.cancelMs, m.outboxMs, m.dispatchMs, m.fanoutMs].map(show),
        m.verdict.bells,
        m.verdict.emails,
        m.verdict.bellsExact && m.verdict.emailsExact && m.verdict.noDuplicates,
        show(m.mailPerSecond),
        m.cancelCpu ?? "-",
        m.fanoutCpu
      ])
    )
    const cancels = ours.map((m) => m.cancelMs ?? Number.NaN)
    const fanouts = ours.map((m) => m.fanoutMs)
    const cancelMax = Math.max(...cancels)
    const fanoutMax = fanouts.some(Number.isNaN) ? Number.NaN : Math.max(...fanouts)
    const oursMedian = median(fanouts)
    const bareMedian = median(theirs.map((m) => m.fanoutMs))
    printRows(["summary", "ms"], [
      ["timebank API  cancel p50", round(median(cancels))],
      ["timebank API  cancel max", round(cancelMax)],
      ["timebank API  fan-out p50 (cancel sent → all rows)", round(oursMedian)],
      ["timebank API  fan-out max", show(fanoutMax)],
      ["bare SQL      INSERT … SELECT p50", round(bareMedian)]
    ])
    const perSecond = (ms: number) => (Number.isFinite(ms) && ms > 0 ? Math.round(s.attendees / (ms / 1000)) : 0)
    printResult("fanout", perSecond(oursMedian), perSecond(bareMedian), {
      cancel_ms_max: round(cancelMax),
      cancel_ms_p50: round(median(cancels)),
      cancel_under_150ms: cancelMax <= CANCEL_LIMIT_MS,
      fanout_ms_max: Number.isNaN(fanoutMax) ? null : round(fanoutMax),
      fanout_under_10s: !Number.isNaN(fanoutMax) && fanoutMax <= FANOUT_LIMIT_MS,
      bells_exact: ours.every((m) => m.verdict.bellsExact),
      emails_exact: ours.every((m) => m.verdict.emailsExact),
      no_duplicates: ours.every((m) => m.verdict.noDuplicates),
      baseline_exact: theirs.every((m) => m.verdict.bellsExact && m.verdict.emailsExact && m.verdict.noDuplicates),
      baseline_ms_p50: round(bareMedian),
      events: s.events,
      attendees: s.attendees,
      mails_per_second: round(median(ours.map((m) => m.mailPerSecond))),
      setup_seconds: setupSeconds
    }, "rows/s")
  } finally {
    await scene?.close()
    rmSync(dataDir, { recursive: true, force: true })
  }
}
