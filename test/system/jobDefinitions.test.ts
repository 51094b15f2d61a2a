import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { JobRegistry, nextDigestTime } from "@timebank/server"
import { Effect } from "effect"
import { randomBytes, randomUUID } from "node:crypto"
import { community } from "../fixtures/community.js"
import { insertRsvp, makeEvent, outboxOf } from "../fixtures/events.js"
import { makePartner } from "../fixtures/federation.js"
import { awaitMails, mailsTo, queueMail, queueRow } from "../fixtures/smtp.js"
import { TestAppWithSmtp } from "../fixtures/smtp.js"
import type { TestUser } from "../fixtures/users.js"

const MINUTE = 60_000
const HOUR = 3_600_000
const DAY = 86_400_000

/** Runs a registered job for one community, as the scheduler and the admin routes do. */
const runJob = (id: string, tenantId: number, at = new Date()) =>
  Effect.gen(function*() {
    const job = yield* Effect.flatMap(JobRegistry, (registry) => registry.find(id))
    if (job === undefined) return yield* Effect.dieMessage(`job ${id} is not registered`)
    return yield* Effect.orDie(job.run({ tenantId, at }))
  })

const sql = <A extends object>(f: (sql: SqlClient.SqlClient) => Effect.Effect<ReadonlyArray<A>, unknown>) =>
  Effect.flatMap(SqlClient.SqlClient, f).pipe(Effect.orDie)

const setModule = (tenantId: number, module: string, on: boolean) =>
  sql((s) =>
    s`UPDATE tenants SET modules = modules || ${JSON.stringify({ [module]: on })}::jsonb WHERE id = ${tenantId}`
  )

/** A session of `user` with an access and a refresh token; all times relative to now (ms). */
const makeSession = (user: TestUser, t: {
  readonly session?: number
  readonly revoked?: number
  readonly access: number
  readonly refresh: number
  readonly consumed?: number
}) =>
  Effect.map(
    sql((s) =>
      s<{ access: string; refresh: string }>`
        WITH session AS (
          INSERT INTO auth_sessions (tenant_id, user_id, kind, expires_at, revoked_at)
          VALUES (${user.tenant.id}, ${user.id}, 'login', ${new Date(Date.now() + (t.session ?? DAY))},
                  ${t.revoked === undefined ? null : new Date(Date.now() + t.revoked)})
          RETURNING id
        ), a AS (
          INSERT INTO access_tokens (token_hash, session_id, expires_at)
          SELECT ${randomBytes(16).toString("hex")}, id, ${new Date(Date.now() + t.access)} FROM session
          RETURNING token_hash
        ), r AS (
          INSERT INTO refresh_tokens (token_hash, session_id, expires_at, consumed_at)
          SELECT ${randomBytes(16).toString("hex")}, id, ${new Date(Date.now() + t.refresh)},
                 ${t.consumed === undefined ? null : new Date(Date.now() + t.consumed)} FROM session
          RETURNING token_hash
        )
        SELECT a.token_hash AS access, r.token_hash AS refresh FROM a, r`
    ),
    (rows) => rows[0]!
  )

const makeResetToken = (user: TestUser, t: { readonly expires: number; readonly used?: number }) =>
  Effect.map(
    sql((s) =>
      s<{ token_hash: string }>`
        INSERT INTO password_reset_tokens (token_hash, user_id, expires_at, used_at)
        VALUES (${randomBytes(16).toString("hex")}, ${user.id}, ${new Date(Date.now() + t.expires)},
                ${t.used === undefined ? null : new Date(Date.now() + t.used)})
        RETURNING token_hash`
    ),
    (rows) => rows[0]!.token_hash
  )

/** Which of these token hashes are still stored (in any of the three tables). */
const stillThere = (hashes: ReadonlyArray<string>) =>
  Effect.map(
    sql((s) =>
      s<{ token_hash: string }>`
        SELECT token_hash FROM access_tokens WHERE token_hash IN ${s.in(hashes)}
        UNION ALL SELECT token_hash FROM refresh_tokens WHERE token_hash IN ${s.in(hashes)}
        UNION ALL SELECT token_hash FROM password_reset_tokens WHERE token_hash IN ${s.in(hashes)}`
    ),
    (rows) => hashes.filter((h) => rows.some((r) => r.token_hash === h))
  )

/** An outbound webhook delivery of `partner`, `status`, next attempted `inMs` from now, held until `claimedFor`. */
const makeDelivery = (
  partner: { readonly id: number; readonly tenantId: number },
  status: "pending" | "retrying" | "dead" | "delivered",
  inMs: number,
  claimedFor?: number
) =>
  Effect.map(
    sql((s) =>
      s<{ id: string }>`
        INSERT INTO federation_deliveries (tenant_id, partner_id, webhook_id, event, body, source_key, status,
          next_attempt_at, claimed_until)
        VALUES (${partner.tenantId}, ${partner.id}, ${randomUUID()}, 'transaction.completed',
          ${JSON.stringify({ tenant: {}, occurred_at: new Date().toISOString(), data: {} })}::jsonb,
          ${randomUUID()}, ${status}, ${new Date(Date.now() + inMs)},
          ${claimedFor === undefined ? null : new Date(Date.now() + claimedFor)})
        RETURNING id`
    ),
    (rows) => Number(rows[0]!.id)
  )

const nextAttemptOf = (id: number) =>
  Effect.map(
    sql((s) => s<{ next_attempt_at: Date }>`SELECT next_attempt_at FROM federation_deliveries WHERE id = ${id}`),
    (rows) => rows[0]!.next_attempt_at.getTime()
  )

describe("the service's work as named jobs, each run for one community", () => {
  // Instant mail once at start only, so that what `email.send` sends is its own doing; the scheduler is off.
  layer(TestAppWithSmtp({ MAIL_POLL_INTERVAL: "1 day" }), { excludeTestServices: true, timeout: "120 seconds" })(
    (it) => {
      it.effect("the registry holds each job with its default schedule", () =>
        Effect.gen(function*() {
          const registry = yield* JobRegistry
          const schedules: Record<string, string | null> = {
            "reminders.deliver": "* * * * *",
            "email.send": null,
            "email.digest.daily": "* * * * *",
            "email.digest.monthly": "* * * * *",
            "email.purge": "0 * * * *",
            "webhooks.retry": null,
            "tokens.purge": "0 3 * * *"
          }
          for (const [id, schedule] of Object.entries(schedules)) {
            const job = yield* registry.find(id)
            assert.isDefined(job, id)
            assert.strictEqual(job!.schedule, schedule, id)
            assert.isNotEmpty(job!.description)
          }
        }))

      it.effect("reminders.deliver delivers the community's due reminders only, and none while its module is off", () =>
        Effect.gen(function*() {
          const a = yield* community({ signIn: "token" })
          const b = yield* community({ signIn: "token" })
          for (const c of [a, b]) {
            const event = yield* makeEvent(c.admin, { startsInHours: 1 })
            yield* insertRsvp(event.id, c.member, "going")
          }
          assert.strictEqual(yield* runJob("reminders.deliver", a.tenant.id), 1)
          assert.deepStrictEqual(
            (yield* outboxOf(a.tenant, "EventReminderDue")).map((p) => [p["kind"], p["user_id"]]),
            [["auto_1h", a.member.id]]
          )
          assert.lengthOf(yield* outboxOf(b.tenant, "EventReminderDue"), 0)

          yield* setModule(b.tenant.id, "reminders", false)
          assert.strictEqual(yield* runJob("reminders.deliver", b.tenant.id), 0)
          assert.lengthOf(yield* outboxOf(b.tenant, "EventReminderDue"), 0)
          yield* setModule(b.tenant.id, "reminders", true)
          assert.strictEqual(yield* runJob("reminders.deliver", b.tenant.id), 1)
          assert.lengthOf(yield* outboxOf(b.tenant, "EventReminderDue"), 1)
          // Run again: nothing is delivered twice.
          assert.strictEqual(yield* runJob("reminders.deliver", a.tenant.id), 0)
          assert.lengthOf(yield* outboxOf(a.tenant, "EventReminderDue"), 1)
        }))

      it.effect("email.send sends the community's queued mail now, not another community's", () =>
        Effect.gen(function*() {
          const a = yield* community({ signIn: "token" })
          const b = yield* community({ signIn: "token" })
          const mine = yield* queueMail({ tenantId: a.tenant.id, userId: a.member.id, subject: "Yours: bread" })
          const theirs = yield* queueMail({ tenantId: b.tenant.id, userId: b.member.id, subject: "Theirs: soup" })

          assert.strictEqual(yield* runJob("email.send", a.tenant.id), 1)
          const [mail] = yield* awaitMails(a.member.email)
          assert.strictEqual(mail!.subject, "Yours: bread")
          assert.strictEqual((yield* queueRow(mine))!.status, "sent")
          assert.strictEqual((yield* queueRow(theirs))!.status, "pending")
          assert.lengthOf(yield* mailsTo(b.member.email), 0)
        }))

      it.effect("email.digest.daily sends at the community's digest time, and skips it while `digests` is off", () =>
        Effect.gen(function*() {
          const a = yield* community({ signIn: "token", timezone: "Europe/Berlin" })
          const b = yield* community({ signIn: "token", timezone: "Europe/Berlin" })
          const row = (c: typeof a, subject: string) =>
            queueMail({ tenantId: c.tenant.id, userId: c.member.id, subject, frequency: "daily", ageSeconds: 3600 })
          const ofA = yield* row(a, "Daily for A")
          const ofB = yield* row(b, "Daily for B")
          const at = new Date(nextDigestTime("daily", "Europe/Berlin", new Date(Date.now() - HOUR)).getTime() + MINUTE)
          yield* setModule(a.tenant.id, "digests", false)

          assert.strictEqual(yield* runJob("email.digest.daily", a.tenant.id, at), 0)
          assert.strictEqual(yield* runJob("email.digest.monthly", a.tenant.id, at), 0)
          assert.strictEqual((yield* queueRow(ofA))!.status, "pending")
          assert.lengthOf(yield* mailsTo(a.member.email), 0)

          // Early for B: before its digest time, nothing is due.
          assert.strictEqual(yield* runJob("email.digest.daily", b.tenant.id, new Date(at.getTime() - 2 * MINUTE)), 0)
          assert.strictEqual(yield* runJob("email.digest.daily", b.tenant.id, at), 1)
          const [digest] = yield* awaitMails(b.member.email)
          assert.include(digest!.text ?? "", "Daily for B")
          assert.strictEqual((yield* queueRow(ofB))!.status, "sent")
          assert.strictEqual((yield* queueRow(ofA))!.status, "pending")

          yield* setModule(a.tenant.id, "digests", true)
          assert.strictEqual(yield* runJob("email.digest.daily", a.tenant.id, at), 1)
          assert.strictEqual((yield* queueRow(ofA))!.status, "sent")
        }))

      it.effect("email.purge expires and deletes the community's old mail only", () =>
        Effect.gen(function*() {
          const a = yield* community({ signIn: "token" })
          const b = yield* community({ signIn: "token" })
          const old = (tenantId: number, userId: number) =>
            Effect.all([
              queueMail({ tenantId, userId, subject: "old", status: "sent", ageSeconds: 31 * DAY / 1000 }),
              queueMail({ tenantId, userId, subject: "stale", ageSeconds: 8 * DAY / 1000, nextAttemptIn: 3600 }),
              queueMail({ tenantId, userId, subject: "recent", status: "sent", ageSeconds: DAY / 1000 })
            ])
          const [oldA, staleA, recentA] = yield* old(a.tenant.id, a.member.id)
          const [oldB, staleB] = yield* old(b.tenant.id, b.member.id)

          assert.strictEqual(yield* runJob("email.purge", a.tenant.id), 2)
          assert.isUndefined(yield* queueRow(oldA))
          assert.strictEqual((yield* queueRow(staleA))!.status, "failed")
          assert.strictEqual((yield* queueRow(recentA))!.status, "sent")
          assert.strictEqual((yield* queueRow(oldB))!.status, "sent")
          assert.strictEqual((yield* queueRow(staleB))!.status, "pending")
        }))

      it.effect("tokens.purge deletes the community's dead tokens, keeps live ones and other communities'", () =>
        Effect.gen(function*() {
          const a = yield* community({ signIn: "token" })
          const b = yield* community({ signIn: "token" })
          const make = (c: typeof a) =>
            Effect.gen(function*() {
              const u = c.member
              return {
                expired: yield* makeSession(u, { access: -MINUTE, refresh: -MINUTE }),
                live: yield* makeSession(u, { access: 10 * MINUTE, refresh: DAY }),
                // Consumed, of a live session: kept, so that its reuse still revokes the session.
                consumed: yield* makeSession(u, { access: 10 * MINUTE, refresh: DAY, consumed: -HOUR }),
                revokedLongAgo: yield* makeSession(u, { access: -DAY, refresh: DAY, revoked: -8 * DAY }),
                revokedToday: yield* makeSession(u, { access: 10 * MINUTE, refresh: DAY, revoked: -HOUR }),
                usedLongAgo: yield* makeResetToken(u, { expires: -8 * DAY, used: -9 * DAY }),
                usedToday: yield* makeResetToken(u, { expires: -HOUR, used: -2 * HOUR }),
                usable: yield* makeResetToken(u, { expires: HOUR })
              }
            })
          const ofA = yield* make(a)
          const ofB = yield* make(b)
          const all = (t: typeof ofA) => [
            t.expired.access,
            t.expired.refresh,
            t.live.access,
            t.live.refresh,
            t.consumed.refresh,
            t.revokedLongAgo.access,
            t.revokedLongAgo.refresh,
            t.revokedToday.refresh,
            t.usedLongAgo,
            t.usedToday,
            t.usable
          ]

          assert.strictEqual(yield* runJob("tokens.purge", a.tenant.id), 5)
          assert.sameMembers(yield* stillThere(all(ofA)), [
            ofA.live.access,
            ofA.live.refresh,
            ofA.consumed.refresh,
            ofA.revokedToday.refresh,
            ofA.usedToday,
            ofA.usable
          ])
          assert.sameMembers(yield* stillThere(all(ofB)), all(ofB))
          // The live session still signs in.
          const me = yield* a.member.client.users.me()
          assert.strictEqual(me.data.id, a.member.id)
        }))

      it.effect("webhooks.retry makes the community's deliveries waiting for a retry due now", () =>
        Effect.gen(function*() {
          const a = yield* community({ signIn: "token" })
          const b = yield* community({ signIn: "token" })
          const partnerA = yield* makePartner(a.tenant)
          const partnerB = yield* makePartner(b.tenant)
          const retrying = yield* makeDelivery(partnerA, "retrying", HOUR)
          const pendingLater = yield* makeDelivery(partnerA, "pending", 10 * MINUTE)
          const alreadyDue = yield* makeDelivery(partnerA, "pending", -MINUTE)
          const held = yield* makeDelivery(partnerA, "retrying", HOUR, 5 * MINUTE)
          const dead = yield* makeDelivery(partnerA, "dead", HOUR)
          const other = yield* makeDelivery(partnerB, "retrying", HOUR)
          const before = new Map<number, number>()
          for (const id of [alreadyDue, held, dead, other]) before.set(id, yield* nextAttemptOf(id))

          const at = new Date()
          assert.strictEqual(yield* runJob("webhooks.retry", a.tenant.id, at), 2)
          assert.strictEqual(yield* nextAttemptOf(retrying), at.getTime())
          assert.strictEqual(yield* nextAttemptOf(pendingLater), at.getTime())
          for (const [id, time] of before) assert.strictEqual(yield* nextAttemptOf(id), time, `delivery ${id}`)
          // Run again: nothing is left waiting.
          assert.strictEqual(yield* runJob("webhooks.retry", a.tenant.id), 0)
        }))
    }
  )
})
