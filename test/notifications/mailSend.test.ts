import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { Effect, Schedule } from "effect"
import { expectOk } from "../fixtures/client.js"
import { community } from "../fixtures/community.js"
import { fund } from "../fixtures/ledger.js"
import { fromIp, randomIp } from "../fixtures/servers.js"
import { awaitMails, mailsTo, queueMail, queueRow, Smtp, TestAppWithSmtp } from "../fixtures/smtp.js"
import { tenantHeaders } from "../fixtures/tenants.js"
import { apiClient } from "../fixtures/TestApp.js"

/** Waits (5 s at most) until the queue row's status is `status`. */
const awaitStatus = (id: number, status: string) =>
  Effect.gen(function*() {
    for (let i = 0; i < 250; i++) {
      const row = yield* queueRow(id)
      if (row?.status === status) return row
      yield* Effect.sleep("20 millis")
    }
    return yield* Effect.dieMessage(`queue row ${id} never became ${status}`)
  })

/** A header as it was sent (mailparser turns `List-*` headers into objects). */
const headerOf = (mail: { readonly headerLines: ReadonlyArray<{ key: string; line: string }> }, name: string) => {
  const line = mail.headerLines.find((h) => h.key === name)?.line ?? ""
  return line.slice(line.indexOf(":") + 1).replace(/\r?\n\s+/g, " ").trim()
}

describe("notification e-mail through SMTP", () => {
  layer(TestAppWithSmtp(), { excludeTestServices: true, timeout: "120 seconds" })((it) => {
    it.effect("an instant row arrives as text and HTML in the member's language, with one-click unsubscribe", () =>
      Effect.gen(function*() {
        const c = yield* community()
        yield* expectOk(c.member.client.users.updateMe({ payload: { preferred_language: "de" } }))
        const german = yield* queueMail({
          tenantId: c.tenant.id,
          userId: c.member.id,
          subject: "Neues Angebot: Gartenhilfe",
          body: "Otto hat <b>Gartenhilfe</b> angeboten.",
          link: "/listings/7"
        })
        yield* queueMail({ tenantId: c.tenant.id, userId: c.other.id, subject: "New listing: Bread" })

        const [mail] = yield* awaitMails(c.member.email)
        assert.strictEqual(mail!.subject, "Neues Angebot: Gartenhilfe")
        assert.include(mail!.text ?? "", "Hallo Mia,")
        assert.include(mail!.text ?? "", "Otto hat <b>Gartenhilfe</b> angeboten.")
        assert.include(mail!.text ?? "", "http://timebank.test/listings/7")
        assert.include(mail!.text ?? "", "Du erhältst diese E-Mail als Mitglied von")
        const html = String(mail!.html)
        assert.include(html, "<p>Hallo Mia,</p>")
        assert.include(html, "Otto hat &lt;b&gt;Gartenhilfe&lt;/b&gt; angeboten.")
        assert.include(html, "Diese E-Mails abbestellen")
        assert.match(
          headerOf(mail!, "list-unsubscribe"),
          /^<http:\/\/timebank\.test\/api\/v2\/notifications\/unsubscribe\?token=[\w%.-]+>$/
        )
        assert.strictEqual(headerOf(mail!, "list-unsubscribe-post"), "List-Unsubscribe=One-Click")
        assert.strictEqual((yield* awaitStatus(german, "sent")).attempts, 1)

        const [english] = yield* awaitMails(c.other.email)
        assert.include(english!.text ?? "", "Hello Otto,")
        assert.include(english!.text ?? "", "Unsubscribe from these e-mails")
      }))

    it.effect("a refused recipient is retried later with backoff, and never holds up the others", () =>
      Effect.gen(function*() {
        const smtp = yield* Smtp
        const c = yield* community()
        smtp.refused.add(c.other.email.toLowerCase())
        const refused = yield* queueMail({ tenantId: c.tenant.id, userId: c.other.id, subject: "For Otto" })
        const served = yield* queueMail({ tenantId: c.tenant.id, userId: c.member.id, subject: "For Mia" })

        yield* awaitMails(c.member.email)
        yield* awaitStatus(served, "sent")
        const waiting = yield* queueRow(refused)
        assert.strictEqual(waiting!.status, "pending")
        assert.isAtLeast(waiting!.attempts, 1)
        assert.include(waiting!.last_error ?? "", "550")
        assert.isAbove(waiting!.next_attempt_at.getTime(), Date.now() - 1000)
        assert.lengthOf(yield* mailsTo(c.other.email), 0)

        smtp.refused.delete(c.other.email.toLowerCase())
        const [late] = yield* awaitMails(c.other.email)
        assert.strictEqual(late!.subject, "For Otto")
        assert.isAtLeast((yield* awaitStatus(refused, "sent")).attempts, 2)
      }))

    it.effect("while the SMTP server is down rows wait, and go once it is back", () =>
      Effect.gen(function*() {
        const smtp = yield* Smtp
        const c = yield* community()
        smtp.down = true
        const id = yield* queueMail({ tenantId: c.tenant.id, userId: c.member.id, subject: "Patience" })
        yield* Effect.sleep("600 millis")
        const waiting = yield* queueRow(id)
        smtp.down = false
        assert.strictEqual(waiting!.status, "pending")
        assert.isAtLeast(waiting!.attempts, 1)
        assert.isNotNull(waiting!.last_error)
        const [mail] = yield* awaitMails(c.member.email)
        assert.strictEqual(mail!.subject, "Patience")
        yield* awaitStatus(id, "sent")
      }))

    it.effect("a real grant reaches a German member by instant mail, in German", () =>
      Effect.gen(function*() {
        const c = yield* community()
        yield* expectOk(c.member.client.users.updateMe({ payload: { preferred_language: "de" } }))
        yield* expectOk(c.member.client.notificationSettings.saveSetting({
          payload: { context_type: "global", context_id: null, frequency: "instant" }
        }))
        yield* fund(c.admin.headers, c.member.id, 3)
        const [mail] = yield* awaitMails(c.member.email)
        const sql = yield* SqlClient.SqlClient
        const [row] = yield* sql<{ subject: string; status: string }>`
          SELECT subject, status FROM notification_email_queue WHERE user_id = ${c.member.id}`.pipe(Effect.orDie)
        assert.strictEqual(mail!.subject, row!.subject)
        assert.include(mail!.text ?? "", "Hallo Mia,")
        assert.match(headerOf(mail!, "list-unsubscribe"), /unsubscribe\?token=/)
      }))

    it.effect("an account mail (password reset) goes through the same transport, with its link", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const client = yield* apiClient({ ...tenantHeaders(c.tenant), ...fromIp(randomIp()) })
        yield* expectOk(client.auth.requestPasswordReset({ payload: { email: c.member.email } }))
        const [mail] = yield* awaitMails(c.member.email)
        assert.include(mail!.subject ?? "", "Reset your password for")
        assert.match(mail!.text ?? "", /http:\/\/timebank\.test\/password-reset\?tenant=[\w-]+&token=\w+/)
        assert.include(String(mail!.html), "Choose a new password")
        const sql = yield* SqlClient.SqlClient
        const outbox = sql<{ status: string; token: string }>`
          SELECT status, data->>'token' AS token FROM mail_outbox WHERE user_id = ${c.member.id}`.pipe(Effect.orDie)
        // The row is marked when the send's transaction commits, a moment after the server took the mail.
        const rows = yield* outbox.pipe(
          Effect.filterOrFail((rows) => rows[0]?.status !== "pending"),
          Effect.retry(Schedule.spaced("20 millis").pipe(Schedule.upTo("5 seconds"))),
          Effect.orDie
        )
        assert.deepStrictEqual(rows.map((r) => r.status), ["sent"])
        assert.include(mail!.text ?? "", encodeURIComponent(rows[0]!.token))
      }))
  })
})
