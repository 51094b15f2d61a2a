import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { simpleParser } from "mailparser"
import { mkdtempSync, readdirSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { codeOf, fieldsOf } from "../fixtures/bodies.js"
import { expectError, expectOk } from "../fixtures/client.js"
import { community } from "../fixtures/community.js"
import { awaitMails, MAIL_TEST_CONFIG, mailsTo, queueMail, queueRow, Smtp, TestAppWithSmtp } from "../fixtures/smtp.js"
import { rawRequest, TestApp } from "../fixtures/TestApp.js"

describe("admin e-mail status and test (SMTP)", () => {
  layer(TestAppWithSmtp(), { excludeTestServices: true, timeout: "120 seconds" })((it) => {
    it.effect("status: transport, sender, this community's queue by status and the last failure", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const other = yield* community()
        yield* queueMail({ tenantId: c.tenant.id, userId: c.member.id, subject: "old", status: "sent" })
        yield* queueMail({ tenantId: c.tenant.id, userId: c.member.id, subject: "gone", status: "failed" })
        yield* queueMail({ tenantId: other.tenant.id, userId: other.member.id, subject: "elsewhere", status: "sent" })
        const smtp = yield* Smtp
        smtp.refused.add(c.other.email.toLowerCase())
        const failing = yield* queueMail({ tenantId: c.tenant.id, userId: c.other.id, subject: "refused" })
        for (let i = 0; i < 100 && (yield* queueRow(failing))!.attempts === 0; i++) yield* Effect.sleep("20 millis")
        for (let i = 0; i < 100 && (yield* queueRow(failing))!.last_error === null; i++) {
          yield* Effect.sleep("20 millis")
        }
        smtp.refused.delete(c.other.email.toLowerCase())

        const { data } = yield* expectOk(c.admin.client.adminEmail.status())
        assert.strictEqual(data.transport, "smtp")
        assert.strictEqual(data.from, "timebank <no-reply@localhost>")
        assert.deepStrictEqual(data.queue, { pending: 1, sent: 1, failed: 1 })
        assert.isNotNull(data.last_sent_at)
        assert.strictEqual(data.last_failure?.id, failing)
        assert.strictEqual(data.last_failure?.status, "pending")
        assert.include(data.last_failure?.error ?? "", "550")
        assert.isNotNull(data.last_failure?.retry_at)
        assert.deepStrictEqual(Object.keys(data.account_mail).sort(), ["failed", "pending", "sent"])
      }))

    it.effect("test: a real mail to the admin (with their unsubscribe link) or to a given address (without)", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const own = yield* expectOk(c.admin.client.adminEmail.test({ payload: {} }))
        assert.deepInclude(own.data, { sent: true, to: c.admin.email, transport: "smtp" })
        assert.isNotNull(own.data.message_id)
        const [mail] = yield* awaitMails(c.admin.email)
        assert.strictEqual(mail!.subject, `Test e-mail from ${c.tenant.name}`)
        assert.include(mail!.text ?? "", "Hello Ada,")
        assert.include(mail!.text ?? "", "SMTP server")
        assert.isTrue(mail!.headerLines.some((h) => h.key === "list-unsubscribe"))

        const elsewhere = "ops@example.net"
        const given = yield* expectOk(c.admin.client.adminEmail.test({ payload: { to: elsewhere } }))
        assert.deepInclude(given.data, { sent: true, to: elsewhere })
        const [outside] = yield* awaitMails(elsewhere)
        assert.isFalse(outside!.headerLines.some((h) => h.key === "list-unsubscribe"))
        assert.include(outside!.text ?? "", "Hello,")
      }))

    it.effect("test while the server is down answers what happened: not sent, with the server's error", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const smtp = yield* Smtp
        smtp.down = true
        const answer = yield* expectOk(c.admin.client.adminEmail.test({ payload: {} }))
        smtp.down = false
        assert.deepInclude(answer.data, { sent: false, to: c.admin.email, message_id: null })
        assert.include(answer.data.detail, "554")
        assert.lengthOf(yield* mailsTo(c.admin.email), 0)
      }))

    it.effect("members get 403, callers without a token 401, a bad address 422", () =>
      Effect.gen(function*() {
        const c = yield* community()
        yield* c.member.client.adminEmail.status().pipe(expectError(403, "FORBIDDEN"))
        yield* c.member.client.adminEmail.test({ payload: {} }).pipe(expectError(403, "FORBIDDEN"))
        yield* c.visitor.client.adminEmail.status().pipe(expectError(401, "AUTH_REQUIRED"))
        yield* c.visitor.client.adminEmail.test({ payload: {} }).pipe(expectError(401, "AUTH_REQUIRED"))
        // A body the contract refuses to send: raw.
        const bad = yield* rawRequest("POST", "/api/v2/admin/email/test", {
          headers: c.admin.headers,
          body: JSON.stringify({ to: "not an address" })
        })
        assert.deepStrictEqual([bad.status, fieldsOf(bad.body), codeOf(bad.body)], [422, ["to"], "VALIDATION_ERROR"])
        assert.lengthOf(yield* mailsTo(c.member.email), 0)
      }))
  })
})

const dataDir = mkdtempSync(join(tmpdir(), "timebank-mail-"))
const emlFiles = () => {
  try {
    return readdirSync(join(dataDir, "mail")).filter((f) => f.endsWith(".eml"))
  } catch {
    return []
  }
}

describe("without SMTP_URL mail is written as .eml files under DATA_DIR/mail", () => {
  layer(TestApp({ ...MAIL_TEST_CONFIG, DATA_DIR: dataDir }), { excludeTestServices: true, timeout: "120 seconds" })(
    (it) => {
      it.effect("an instant row becomes a complete .eml file; the status says `file`", () =>
        Effect.gen(function*() {
          const c = yield* community()
          const id = yield* queueMail({ tenantId: c.tenant.id, userId: c.member.id, subject: "Into the folder" })
          for (let i = 0; i < 250 && (yield* queueRow(id))!.status !== "sent"; i++) yield* Effect.sleep("20 millis")
          assert.strictEqual((yield* queueRow(id))!.status, "sent")
          const files = emlFiles()
          const parsed = yield* Effect.forEach(files, (f) =>
            Effect.promise(() => simpleParser(readFileSync(join(dataDir, "mail", f)))))
          const mail = parsed.find((m) =>
            m.subject === "Into the folder"
          )
          assert.isDefined(mail)
          assert.include(mail!.text ?? "", "Hello Mia,")
          assert.include(String(mail!.html), "<p>Hello Mia,</p>")
          assert.isTrue(mail!.headerLines.some((h) => h.key === "list-unsubscribe-post"))

          const { data } = yield* expectOk(c.admin.client.adminEmail.status())
          assert.strictEqual(data.transport, "file")
          const test = yield* expectOk(c.admin.client.adminEmail.test({ payload: {} }))
          assert.isTrue(test.data.sent)
          assert.include(test.data.detail, join("mail", ""))
          assert.isTrue(emlFiles().length > files.length)
        }))
    }
  )
})
