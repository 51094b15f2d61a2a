import { SqlClient } from "@effect/sql"
import { assert, describe, it, layer } from "@effect/vitest"
import { latestDigestTime, MailSender, nextDigestTime, retryDelayMs } from "@timebank/server"
import { Effect } from "effect"
import { expectOk } from "../fixtures/client.js"
import { community } from "../fixtures/community.js"
import { awaitMails, mailsTo, queueMail, queueRow, TestAppWithSmtp } from "../fixtures/smtp.js"

const MINUTE = 60_000
const DAY = 86_400_000

/** The real jobs the scheduler runs, at a time the test chooses. */
const runDigests = (now: Date) =>
  Effect.flatMap(MailSender, (sender) => sender.runDigests(now)).pipe(Effect.provide(MailSender.Default))
const expireAndPurge = (now: Date) =>
  Effect.flatMap(MailSender, (sender) => sender.expireAndPurge(now)).pipe(Effect.provide(MailSender.Default))

describe("digest times", () => {
  it("daily at 08:00 and monthly on the 1st at 17:00, local time, across daylight saving", () => {
    // Berlin moves to summer time on 2026-03-29 at 01:00 UTC: 08:00 is 07:00 UTC before, 06:00 UTC after.
    assert.strictEqual(
      latestDigestTime("daily", "Europe/Berlin", new Date("2026-03-29T05:30:00Z")).toISOString(),
      "2026-03-28T07:00:00.000Z"
    )
    assert.strictEqual(
      nextDigestTime("daily", "Europe/Berlin", new Date("2026-03-29T05:30:00Z")).toISOString(),
      "2026-03-29T06:00:00.000Z"
    )
    assert.strictEqual(
      latestDigestTime("monthly", "America/New_York", new Date("2026-07-01T20:00:00Z")).toISOString(),
      "2026-06-01T21:00:00.000Z"
    )
    assert.strictEqual(
      nextDigestTime("monthly", "UTC", new Date("2026-12-15T00:00:00Z")).toISOString(),
      "2027-01-01T17:00:00.000Z"
    )
    assert.deepStrictEqual([1, 2, 3, 20].map((n) => retryDelayMs(n, 30_000)), [30_000, 60_000, 120_000, 3_600_000])
  })
})

describe("digests, expiry and purge", () => {
  layer(TestAppWithSmtp(), { excludeTestServices: true, timeout: "120 seconds" })((it) => {
    it.effect("the daily digest at 08:00 local time: one mail per member with their rows, sent once", () =>
      Effect.gen(function*() {
        const c = yield* community({ timezone: "Europe/Berlin" })
        yield* expectOk(c.member.client.users.updateMe({ payload: { preferred_language: "de" } }))
        const hourAgo = new Date(Date.now() - 60 * MINUTE)
        const row = (userId: number, subject: string, frequency: "daily" | "monthly" = "daily") =>
          queueMail({ tenantId: c.tenant.id, userId, subject, body: `${subject}!`, frequency, ageSeconds: 3600 })
        const mia = [yield* row(c.member.id, "Neues Angebot: Brot"), yield* row(c.member.id, "Neues Angebot: Rad")]
        const otto = yield* row(c.other.id, "New listing: Soup")
        const monthly = yield* row(c.member.id, "Monatlich", "monthly")

        const at = nextDigestTime("daily", "Europe/Berlin", hourAgo)
        const early = yield* runDigests(new Date(at.getTime() - MINUTE))
        assert.deepStrictEqual(early, { sent: 0, retried: 0, failed: 0 })
        assert.lengthOf(yield* mailsTo(c.member.email), 0)

        const report = yield* runDigests(new Date(at.getTime() + MINUTE))
        assert.deepStrictEqual(report, { sent: 3, retried: 0, failed: 0 })
        const [german] = yield* awaitMails(c.member.email)
        assert.strictEqual(german!.subject, `2 neue Benachrichtigungen von ${c.tenant.name} heute`)
        assert.include(german!.text ?? "", "Neues Angebot: Brot")
        assert.include(german!.text ?? "", "Neues Angebot: Rad")
        assert.include(german!.text ?? "", "Hallo Mia,")
        assert.notInclude(german!.text ?? "", "Monatlich")
        assert.isTrue(german!.headerLines.some((h) => h.key === "list-unsubscribe"))
        const [english] = yield* awaitMails(c.other.email)
        assert.strictEqual(english!.subject, `1 new notification from ${c.tenant.name} today`)
        assert.include(String(english!.html), "New listing: Soup")
        for (const id of [...mia, otto]) assert.strictEqual((yield* queueRow(id))!.status, "sent")
        assert.strictEqual((yield* queueRow(monthly))!.status, "pending")

        // Run again (another tick, or a second runner after a handover): nothing is sent twice.
        assert.deepStrictEqual(yield* runDigests(new Date(at.getTime() + 2 * MINUTE)), {
          sent: 0,
          retried: 0,
          failed: 0
        })
        assert.lengthOf(yield* mailsTo(c.member.email), 1)

        const month = nextDigestTime("monthly", "Europe/Berlin", hourAgo)
        assert.strictEqual((yield* runDigests(new Date(month.getTime() + MINUTE))).sent, 1)
        const [, monthlyMail] = yield* awaitMails(c.member.email, 2)
        assert.strictEqual(monthlyMail!.subject, `1 neue Benachrichtigung von ${c.tenant.name} in diesem Monat`)
      }))

    it.effect("pending rows fail 7 days past due; sent and failed rows are deleted after 30 days", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const base = { tenantId: c.tenant.id, userId: c.member.id, subject: "old" }
        // Rows still retrying (next attempt an hour away), so the instant sender leaves them to this job.
        const stale = yield* queueMail({ ...base, ageSeconds: 8 * DAY / 1000, nextAttemptIn: 3600 })
        const young = yield* queueMail({ ...base, ageSeconds: 6 * DAY / 1000, nextAttemptIn: 3600 })
        const dailyInGrace = yield* queueMail({ ...base, frequency: "daily", ageSeconds: 7.5 * DAY / 1000 })
        const dailyStale = yield* queueMail({ ...base, frequency: "daily", ageSeconds: 9 * DAY / 1000 })
        const monthlyWaiting = yield* queueMail({ ...base, frequency: "monthly", ageSeconds: 20 * DAY / 1000 })
        const oldSent = yield* queueMail({ ...base, status: "sent", ageSeconds: 31 * DAY / 1000 })
        const oldFailed = yield* queueMail({ ...base, status: "failed", ageSeconds: 31 * DAY / 1000 })
        const recentSent = yield* queueMail({ ...base, status: "sent", ageSeconds: 29 * DAY / 1000 })

        const report = yield* expireAndPurge(new Date())
        assert.isAtLeast(report.expired, 2)
        assert.isAtLeast(report.purged, 2)
        assert.strictEqual((yield* queueRow(stale))!.status, "failed")
        assert.include((yield* queueRow(stale))!.last_error ?? "", "expired")
        assert.strictEqual((yield* queueRow(dailyStale))!.status, "failed")
        for (const id of [young, dailyInGrace, monthlyWaiting]) {
          assert.strictEqual((yield* queueRow(id))!.status, "pending")
        }
        assert.isUndefined(yield* queueRow(oldSent))
        assert.isUndefined(yield* queueRow(oldFailed))
        assert.strictEqual((yield* queueRow(recentSent))!.status, "sent")
        const sql = yield* SqlClient.SqlClient
        yield* sql`DELETE FROM notification_email_queue WHERE id IN (${young}, ${dailyInGrace}, ${monthlyWaiting})`
          .pipe(Effect.orDie)
      }))
  })
})
