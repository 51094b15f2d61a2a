import { HttpClient, HttpClientRequest } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import type { UnsubscribeKind } from "@timebank/domain"
import { signUnsubscribe, UnsubscribeTokens } from "@timebank/server"
import { Effect } from "effect"
import { randomBytes } from "node:crypto"
import { errorsOf } from "../fixtures/bodies.js"
import { expectOk } from "../fixtures/client.js"
import { type Actor, community } from "../fixtures/community.js"
import { awaitMails, mailsTo, queueMail, queueRow, TestAppWithSmtp } from "../fixtures/smtp.js"

const PATH = "/api/v2/notifications/unsubscribe"

const tokenFor = (who: Actor, kind: UnsubscribeKind) =>
  Effect.map(UnsubscribeTokens, (tokens) => tokens.sign({ u: who.id, t: who.tenant.id, k: kind })).pipe(
    Effect.provide(UnsubscribeTokens.Default)
  )

/**
 * Raw requests without tenant or bearer headers, as a mail client or a browser sends them: the one-click POST is a
 * form body (which the typed client does not send for this route), and the wire status and body are the point.
 */
const send = (method: "GET" | "POST", token: string | undefined, form: Record<string, string> | undefined) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    let request = HttpClientRequest.make(method)(PATH).pipe(
      HttpClientRequest.setUrlParams(token === undefined ? {} : { token })
    )
    if (form !== undefined) request = HttpClientRequest.bodyUrlParams(request, form)
    const response = yield* client.execute(request)
    const text = yield* response.text
    return { status: response.status, type: response.headers["content-type"] ?? "", text }
  }).pipe(Effect.scoped, Effect.orDie)

const page = (token: string | undefined) => send("GET", token, undefined)
const oneClick = (token: string | undefined) => send("POST", token, { "List-Unsubscribe": "One-Click" })

const preferencesOf = (who: Actor) => Effect.map(expectOk(who.client.users.notifications()), (r) => r.data)

describe("unsubscribe links", () => {
  layer(TestAppWithSmtp(), { excludeTestServices: true, timeout: "120 seconds" })((it) => {
    it.effect("GET shows the question in the member's language and changes nothing; the one-click POST applies it", () =>
      Effect.gen(function*() {
        const c = yield* community()
        yield* expectOk(c.member.client.users.updateMe({ payload: { preferred_language: "de" } }))
        const token = yield* tokenFor(c.member, "email_transactions")

        const shown = yield* page(token)
        assert.strictEqual(shown.status, 200)
        assert.include(shown.type, "text/html")
        assert.include(shown.text, "<html lang=\"de\">")
        assert.include(shown.text, "E-Mails über Transaktionen")
        assert.include(shown.text, "name=\"List-Unsubscribe\" value=\"One-Click\"")
        assert.isTrue((yield* preferencesOf(c.member)).email_transactions)

        const applied = yield* oneClick(token)
        assert.strictEqual(applied.status, 200)
        assert.deepStrictEqual(JSON.parse(applied.text), {
          data: { kind: "email_transactions", unsubscribed: true },
          meta: {}
        })
        const after = yield* preferencesOf(c.member)
        assert.deepInclude(after, { email_transactions: false, email_messages: true, email_enabled: true })
        // Applying again is harmless.
        assert.strictEqual((yield* oneClick(token)).status, 200)
      }))

    it.effect("the List-Unsubscribe address of a real mail unsubscribes from that kind in one click", () =>
      Effect.gen(function*() {
        const c = yield* community()
        yield* queueMail({
          tenantId: c.tenant.id,
          userId: c.member.id,
          subject: "Otto sent you 2 credits",
          type: "transaction_received",
          category: "transactions"
        })
        const [mail] = yield* awaitMails(c.member.email)
        const line = mail!.headerLines.find((h) => h.key === "list-unsubscribe")!.line.replace(/\r?\n\s+/g, "")
        const url = new URL(/<([^>]+)>/.exec(line)![1]!)
        assert.strictEqual(url.pathname, PATH)
        const applied = yield* oneClick(url.searchParams.get("token")!)
        assert.strictEqual(applied.status, 200)
        assert.include(applied.text, "email_transactions")
        assert.isFalse((yield* preferencesOf(c.member)).email_transactions)
      }))

    it.effect("digest: the global frequency becomes off and the member's waiting digest rows are dropped", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const waiting = yield* queueMail({
          tenantId: c.tenant.id,
          userId: c.member.id,
          subject: "later",
          frequency: "daily"
        })
        assert.strictEqual((yield* oneClick(yield* tokenFor(c.member, "digest"))).status, 200)
        const settings = yield* expectOk(c.member.client.notificationSettings.settings())
        assert.deepInclude(settings.data, { context_type: "global", context_id: null, frequency: "off" })
        assert.strictEqual((yield* queueRow(waiting))!.status, "failed")
        assert.isTrue((yield* preferencesOf(c.member)).email_enabled)
      }))

    it.effect("all: every e-mail stops — queued mail to the member is marked failed and never sent", () =>
      Effect.gen(function*() {
        const c = yield* community()
        assert.strictEqual((yield* oneClick(yield* tokenFor(c.member, "all"))).status, 200)
        assert.isFalse((yield* preferencesOf(c.member)).email_enabled)
        const settings = yield* expectOk(c.member.client.notificationSettings.settings())
        assert.deepInclude(settings.data, { context_type: "global", context_id: null, frequency: "off" })

        const skipped = yield* queueMail({ tenantId: c.tenant.id, userId: c.member.id, subject: "not for Mia" })
        const sent = yield* queueMail({ tenantId: c.tenant.id, userId: c.other.id, subject: "for Otto" })
        yield* awaitMails(c.other.email)
        for (let i = 0; i < 100 && (yield* queueRow(skipped))!.status === "pending"; i++) {
          yield* Effect.sleep("20 millis")
        }
        const row = yield* queueRow(skipped)
        assert.strictEqual(row!.status, "failed")
        assert.strictEqual(row!.last_error, "member turned e-mail off")
        assert.lengthOf(yield* mailsTo(c.member.email), 0)
        assert.isDefined(yield* queueRow(sent))
      }))

    it.effect("a tampered, foreign or unknown token is 400 INVALID_TOKEN; a missing one or a bad body is 422", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const token = yield* tokenFor(c.member, "email_messages")
        const [body, signature] = token.split(".") as [string, string]
        const otherUser = Buffer.from(JSON.stringify({ u: c.other.id, t: c.tenant.id, k: "all" })).toString("base64url")
        const flipped = `${signature.slice(0, -2)}${signature.endsWith("AA") ? "BB" : "AA"}`
        const bad = [
          `${otherUser}.${signature}`,
          `${body}.${flipped}`,
          signUnsubscribe(randomBytes(32), { u: c.member.id, t: c.tenant.id, k: "all" }),
          "not-a-token",
          `${body}.`
        ]
        const sql = yield* SqlClient.SqlClient
        const [gone] = yield* sql<{ max: string }>`SELECT max(id) + 1000 AS max FROM users`.pipe(Effect.orDie)
        bad.push(
          yield* Effect.map(
            UnsubscribeTokens,
            (tokens) => tokens.sign({ u: Number(gone!.max), t: c.tenant.id, k: "all" })
          ).pipe(Effect.provide(UnsubscribeTokens.Default))
        )
        for (const token of bad) {
          for (const answer of [yield* page(token), yield* oneClick(token)]) {
            assert.strictEqual(answer.status, 400, token)
            assert.deepStrictEqual(errorsOf(JSON.parse(answer.text)).map((e) => e.code), ["INVALID_TOKEN"])
          }
        }
        assert.isTrue((yield* preferencesOf(c.other)).email_enabled)
        assert.isTrue((yield* preferencesOf(c.member)).email_messages)

        assert.strictEqual((yield* page(undefined)).status, 422)
        assert.strictEqual((yield* send("POST", token, { "List-Unsubscribe": "Later" })).status, 422)
        assert.isTrue((yield* preferencesOf(c.member)).email_messages)
      }))
  })
})
