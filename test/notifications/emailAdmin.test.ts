import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { type MailStatus, UserId } from "@timebank/domain"
import { Effect, Layer } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { codeOf, fieldsOf } from "../fixtures/bodies.js"
import { type ApiClient, apiClient, expectError, expectOk } from "../fixtures/client.js"
import { actor, type Community, community, makeActor } from "../fixtures/community.js"
import { freePort } from "../fixtures/ports.js"
import { awaitMails, MAIL_TEST_CONFIG, mailsTo, queueMail, queueRow, Smtp, TestAppWithSmtp } from "../fixtures/smtp.js"
import { tenantHeaders } from "../fixtures/tenants.js"
import { rawRequest, TestApp } from "../fixtures/TestApp.js"
import { makeSuperAdmin } from "../fixtures/users.js"

const statusOf = (client: ApiClient) => Effect.map(expectOk(client.adminEmail.status()), (res) => res.data)

/** Polls the caller's status until `done` holds (5 s at most). */
const awaitStatus = (client: ApiClient, done: (status: MailStatus) => boolean) =>
  Effect.gen(function*() {
    for (let i = 0; i < 250; i++) {
      const status = yield* statusOf(client)
      if (done(status)) return status
      yield* Effect.sleep("20 millis")
    }
    return yield* Effect.dieMessage(`status never reached: ${JSON.stringify(yield* statusOf(client))}`)
  })

const outboxStatus = (tenantId: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ status: string }>`SELECT status FROM mail_outbox WHERE tenant_id = ${tenantId}`.pipe(
        Effect.map((rows) => rows.map((r) => r.status)),
        Effect.orDie
      )
  )

/** Every e-mail admin route, for the role checks. */
const routes: ReadonlyArray<(client: ApiClient) => Effect.Effect<unknown, unknown>> = [
  (client) => client.adminEmail.status(),
  (client) => client.adminEmail.test({ payload: {} }),
  (client) => client.adminEmail.testProvider()
]

/** Member, broker and coordinator of `c`: none of them runs the community's e-mail. */
const staffAndMember = (c: Community) =>
  Effect.all([
    Effect.succeed(c.member),
    makeActor(c.tenant, { role: "broker" }, "token"),
    makeActor(c.tenant, { role: "coordinator" }, "token")
  ])

describe("admin e-mail: status, test and provider check (SMTP)", () => {
  layer(TestAppWithSmtp(), { excludeTestServices: true, timeout: "120 seconds" })((it) => {
    it.effect("status counts this community's notification and account mail as it is sent and fails, no other's", () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token" })
        const b = yield* community({ signIn: "token" })
        const fresh = yield* statusOf(c.admin.client)
        assert.deepStrictEqual([fresh.transport, fresh.queue, fresh.last_error], [
          "smtp",
          { pending: 0, sent: 0, failed: 0 },
          null
        ])

        // Another community's queue: pending, sent and failed rows, one with an error of its own.
        yield* queueMail({ tenantId: b.tenant.id, userId: b.member.id, subject: "b waits", nextAttemptIn: 3600 })
        const bFailed = yield* queueMail({ tenantId: b.tenant.id, userId: b.member.id, subject: "b", status: "failed" })
        yield* Effect.flatMap(
          SqlClient.SqlClient,
          (sql) => sql`UPDATE notification_email_queue SET last_error = 'only b failed' WHERE id = ${bFailed}`
        )

        // Not yet due: pending. Due: the scheduler sends it and `sent` moves.
        yield* queueMail({ tenantId: c.tenant.id, userId: c.member.id, subject: "later", nextAttemptIn: 3600 })
        yield* queueMail({ tenantId: c.tenant.id, userId: c.member.id, subject: "now" })
        yield* awaitMails(c.member.email)
        const sent = yield* awaitStatus(c.admin.client, (s) => s.queue.sent === 1)
        assert.deepStrictEqual([sent.queue, sent.last_error], [{ pending: 1, sent: 1, failed: 0 }, null])

        // A member who turned e-mail off: the sender fails the row, and its reason is the last error.
        yield* expectOk(c.other.client.users.updateNotifications({ payload: { email_enabled: false } }))
        const off = yield* queueMail({ tenantId: c.tenant.id, userId: c.other.id, subject: "unwanted" })
        const failed = yield* awaitStatus(c.admin.client, (s) => s.queue.failed === 1)
        assert.deepStrictEqual([failed.queue, failed.last_error], [
          { pending: 1, sent: 1, failed: 1 },
          (yield* queueRow(
            off
          ))!.last_error
        ])
        assert.strictEqual(failed.last_error, "member turned e-mail off")

        // Account mail (identity's outbox) counts too: a password reset the admin sends.
        yield* expectOk(c.admin.client.adminUsers.sendPasswordReset({ path: { id: UserId.make(c.member.id) } }))
        yield* awaitMails(c.member.email, 2)
        const withAccount = yield* awaitStatus(c.admin.client, (s) => s.account_mail.sent === 1)
        assert.deepStrictEqual([withAccount.queue, withAccount.account_mail], [
          { pending: 1, sent: 2, failed: 1 },
          { pending: 0, sent: 1, failed: 0 }
        ])
        assert.deepStrictEqual(yield* outboxStatus(c.tenant.id), ["sent"])

        // B's admin sees B's rows, and B's error; A never saw them.
        const other = yield* statusOf(b.admin.client)
        assert.deepStrictEqual([other.queue, other.last_error], [{ pending: 1, sent: 0, failed: 1 }, "only b failed"])
      }))

    it.effect("test sends a real mail to the admin, or to `to`, and says so; a refusal is ok: false with the error", () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token" })
        const own = yield* expectOk(c.admin.client.adminEmail.test({ payload: {} }))
        assert.deepInclude(own.data, { ok: true, sent: true, to: c.admin.email, transport: "smtp" })
        assert.notProperty(own.data, "error")
        const [mail] = yield* awaitMails(c.admin.email)
        assert.strictEqual(mail!.messageId, own.data.message_id)
        assert.strictEqual(mail!.subject, `Test e-mail from ${c.tenant.name}`)

        const given = yield* expectOk(c.admin.client.adminEmail.test({ payload: { to: "Ops@Example.org" } }))
        assert.deepInclude(given.data, { ok: true, to: "Ops@Example.org" })
        const [elsewhere] = yield* awaitMails("ops@example.org")
        assert.strictEqual(elsewhere!.messageId, given.data.message_id)

        const smtp = yield* Smtp
        smtp.refused.add("refused@example.org")
        const refused = yield* expectOk(c.admin.client.adminEmail.test({ payload: { to: "refused@example.org" } }))
        smtp.refused.delete("refused@example.org")
        assert.deepInclude(refused.data, { ok: false, sent: false, message_id: null })
        assert.include(refused.data.error ?? "", "550")
        assert.lengthOf(yield* mailsTo("refused@example.org"), 0)
      }))

    it.effect("test-provider opens the SMTP connection and quotes the server; a server refusing is ok: false", () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token" })
        const smtp = yield* Smtp
        const before = smtp.received.length
        const up = yield* expectOk(c.admin.client.adminEmail.testProvider())
        assert.deepInclude(up.data, { ok: true, transport: "smtp" })
        assert.match(up.data.message ?? "", /^127\.0\.0\.1:\d+ answered: 220 /)
        assert.notProperty(up.data, "error")
        assert.strictEqual(smtp.received.length, before, "a check sends nothing")

        smtp.down = true
        const down = yield* expectOk(c.admin.client.adminEmail.testProvider())
        smtp.down = false
        assert.deepInclude(down.data, { ok: false, transport: "smtp" })
        assert.include(down.data.error ?? "", "554")
        assert.notProperty(down.data, "message")
      }))

    it.effect("401 without a token; 403 for members, brokers and coordinators; 422 on `to`; super-admins may", () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token" })
        const b = yield* community({ signIn: "token" })
        const others = yield* staffAndMember(c)
        // B's admin with B's token, addressing A: not a credential there (decisions D4).
        const foreign = yield* apiClient({ ...b.admin.headers, ...tenantHeaders(c.tenant) })
        for (const call of routes) {
          yield* call(c.visitor.client).pipe(expectError(401, "AUTH_REQUIRED"))
          yield* call(foreign).pipe(expectError(401, "AUTH_REQUIRED"))
          for (const who of others) yield* call(who.client).pipe(expectError(403, "FORBIDDEN"))
        }
        assert.lengthOf(yield* mailsTo(c.member.email), 0)

        for (const to of ["not an address", "a@", "", "x".repeat(250) + "@example.org"]) {
          const bad = yield* rawRequest("POST", "/api/v2/admin/email/test", {
            headers: c.admin.headers,
            body: JSON.stringify({ to })
          })
          assert.deepStrictEqual([bad.status, fieldsOf(bad.body), codeOf(bad.body)], [422, ["to"], "VALIDATION_ERROR"])
        }

        const superAdmin = yield* actor(yield* makeSuperAdmin(), "token")
        const platform = yield* apiClient({ ...superAdmin.headers, ...tenantHeaders(c.tenant) })
        const status = yield* statusOf(platform)
        assert.strictEqual(status.transport, "smtp")
        const sent = yield* expectOk(platform.adminEmail.test({ payload: { to: "platform@example.org" } }))
        assert.isTrue(sent.data.ok)
      }))
  })
})

describe("admin e-mail with SMTP_URL at a closed port", () => {
  const deadSmtp = Layer.unwrapEffect(
    Effect.map(
      Effect.orDie(freePort),
      (port) => TestApp({ ...MAIL_TEST_CONFIG, SMTP_URL: `smtp://127.0.0.1:${port}?ignoreTLS=true` })
    )
  )
  layer(deadSmtp, { excludeTestServices: true, timeout: "120 seconds" })((it) => {
    it.effect("test-provider and test answer ok: false with the connection error; status still says smtp", () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token" })
        const check = yield* expectOk(c.admin.client.adminEmail.testProvider())
        assert.deepInclude(check.data, { ok: false, transport: "smtp" })
        assert.include(check.data.error ?? "", "ECONNREFUSED")
        const test = yield* expectOk(c.admin.client.adminEmail.test({ payload: {} }))
        assert.deepInclude(test.data, { ok: false, sent: false, message_id: null })
        assert.include(test.data.error ?? "", "ECONNREFUSED")
        assert.strictEqual((yield* statusOf(c.admin.client)).transport, "smtp")
      }))
  })
})

describe("admin e-mail with the file transport", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "timebank-mail-check-"))
  layer(TestApp({ ...MAIL_TEST_CONFIG, DATA_DIR: dataDir }), { excludeTestServices: true, timeout: "120 seconds" })(
    (it) => {
      it.effect("test-provider reports the folder the .eml files go to", () =>
        Effect.gen(function*() {
          const c = yield* community({ signIn: "token" })
          const check = yield* expectOk(c.admin.client.adminEmail.testProvider())
          assert.deepStrictEqual(check.data, {
            ok: true,
            transport: "file",
            message: `file transport: messages are written as .eml files to ${join(dataDir, "mail")}`
          })
          assert.strictEqual((yield* statusOf(c.admin.client)).transport, "file")
        }))
    }
  )
})
