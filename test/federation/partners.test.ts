import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { type CreatePartner, FederationPartnerId } from "@timebank/domain"
import { ApiKeyStore, SecretBox } from "@timebank/server"
import { Effect, Option } from "effect"
import { createHmac, randomBytes } from "node:crypto"
import { createServer, type IncomingHttpHeaders } from "node:http"
import type { AddressInfo } from "node:net"
import { expectError, expectStatus, failureOf } from "../fixtures/client.js"
import { type Community, community } from "../fixtures/community.js"
import { makeApiKey, makePartner } from "../fixtures/federation.js"
import { rawRequest, TestApp } from "../fixtures/TestApp.js"

const PARTNERS = "/api/v2/admin/federation/partners"
const pid = (id: number) => FederationPartnerId.make(id)

/** Native credentials with values that occur nowhere else, so a leak is found by a plain text search. */
const nativeCredentials = () => ({
  api_key: `tbk_${randomBytes(32).toString("hex")}`,
  signing_secret: `tbs_${randomBytes(32).toString("hex")}`
})

interface Received {
  readonly url: string
  readonly headers: IncomingHttpHeaders
  readonly body: string
}

/** A partner's endpoint on 127.0.0.1 that records what it receives and answers `answer`, or never (`hang`). */
const receiver = (answer: number | "hang") =>
  Effect.acquireRelease(
    Effect.async<{ readonly url: string; readonly received: Array<Received>; close: () => Promise<void> }>(
      (resume) => {
        const received: Array<Received> = []
        const server = createServer((req, res) => {
          let body = ""
          req.setEncoding("utf8")
          req.on("data", (chunk: string) => (body += chunk))
          req.on("end", () => {
            received.push({ url: req.url ?? "", headers: req.headers, body })
            if (answer !== "hang") res.writeHead(answer, { "content-type": "application/json" }).end("{}")
          })
        })
        const close = () =>
          new Promise<void>((done) => {
            server.closeAllConnections()
            server.close(() => done())
          })
        server.listen(0, "127.0.0.1", () =>
          resume(Effect.succeed({
            url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
            received,
            close
          })))
      }
    ),
    (r) => Effect.promise(r.close)
  )

/** The D13 check a partner does, written out here rather than borrowed from the server's signing module. */
const signatureHolds = (r: Received, secret: string) => {
  const canonical = ["POST", r.url, r.headers["x-federation-timestamp"], r.headers["x-federation-nonce"], r.body]
    .join("\n")
  return createHmac("sha256", Buffer.from(secret, "utf8")).update(canonical, "utf8").digest("hex") ===
    r.headers["x-federation-signature"]
}

const create = (c: Community, payload: CreatePartner) => c.admin.client.federationPartners.create({ payload })

const statusOfPartner = (id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ status: string }>`
    SELECT status FROM federation_partners WHERE id = ${id}`).pipe(Effect.map((rows) => rows[0]?.status))

layer(TestApp(), { excludeTestServices: true, timeout: "120 seconds" })("federation partners", (it) => {
  it.effect("an admin adds a native partner: pending, credentials sealed and answered only as names", () =>
    Effect.gen(function*() {
      const c = yield* community()
      const credentials = nativeCredentials()
      const created = yield* c.admin.client.federationPartners.create({
        payload: {
          name: "Partner Bank",
          protocol_type: "native",
          base_url: "https://partner.example/",
          webhook_url: "https://partner.example/hooks",
          credentials,
          settings: { credit_limit: 25.5, currency: "hours" }
        },
        withResponse: true
      }).pipe(expectStatus(201))
      const partner = created.data
      assert.deepInclude(partner, {
        name: "Partner Bank",
        protocol_type: "native",
        base_url: "https://partner.example/",
        webhook_url: "https://partner.example/hooks",
        status: "pending"
      })
      assert.deepStrictEqual(partner.credentials, { api_key: true, signing_secret: true })
      assert.deepStrictEqual(partner.settings, { credit_limit: 25.5, currency: "hours" })

      // At rest: a sealed box that opens to the credentials, never the secrets in the clear.
      const sql = yield* SqlClient.SqlClient
      const [row] = yield* sql<{ credentials: string; keys: ReadonlyArray<string> }>`
        SELECT credentials, credential_keys AS keys FROM federation_partners WHERE id = ${partner.id}`
      assert.deepStrictEqual(row!.keys, ["api_key", "signing_secret"])
      assert.notInclude(row!.credentials, credentials.api_key)
      assert.notInclude(row!.credentials, credentials.signing_secret)
      const box = yield* Effect.provide(SecretBox, SecretBox.Default)
      assert.deepStrictEqual(JSON.parse(yield* box.open(row!.credentials)), credentials)

      // No response carries a secret: the raw JSON of create, get, list and update.
      const texts = [
        (yield* rawRequest("POST", PARTNERS, {
          headers: c.adminHeaders,
          body: JSON.stringify({ name: "Raw", protocol_type: "native", base_url: "https://raw.example", credentials })
        })).text,
        (yield* rawRequest("GET", `${PARTNERS}/${partner.id}`, { headers: c.adminHeaders })).text,
        (yield* rawRequest("GET", PARTNERS, { headers: c.adminHeaders })).text,
        (yield* rawRequest("PUT", `${PARTNERS}/${partner.id}`, {
          headers: c.adminHeaders,
          body: JSON.stringify({ credentials })
        })).text
      ]
      for (const text of texts) {
        assert.include(text, "\"api_key\":true")
        assert.notInclude(text, credentials.api_key)
        assert.notInclude(text, credentials.signing_secret)
      }

      // Defaults: no credentials, no settings → credit limit 100, no webhook URL; loopback http is allowed.
      const bare = yield* create(c, { name: "Local", protocol_type: "native", base_url: "http://localhost:8080" })
      assert.deepInclude(bare.data, { webhook_url: null, credentials: {}, settings: { credit_limit: 100 } })
      for (const url of ["http://127.0.0.2:9/x", "http://[::1]:8080"]) {
        yield* create(c, { name: "Loopback", protocol_type: "native", base_url: url })
      }
      // Other protocols take their own credential names and settings (decisions D16).
      const timeoverflow = yield* create(c, {
        name: "TimeOverflow",
        protocol_type: "timeoverflow",
        base_url: "https://to.example",
        credentials: { api_key: "to_fed_abc", webhook_secret: "def" },
        settings: { remote_partner_id: 4 }
      })
      assert.deepStrictEqual(timeoverflow.data.credentials, { api_key: true, webhook_secret: true })
      assert.deepStrictEqual(timeoverflow.data.settings, { remote_partner_id: 4, credit_limit: 100 })
    }))

  it.effect("bad input is 422 per field", () =>
    Effect.gen(function*() {
      const c = yield* community()
      const fieldsOf = (body: unknown) =>
        Effect.map(
          rawRequest("POST", PARTNERS, { headers: c.adminHeaders, body: JSON.stringify(body) }),
          (res) => {
            assert.strictEqual(res.status, 422, res.text)
            const errors = (res.body as { errors: ReadonlyArray<{ code: string; field?: string }> }).errors
            errors.forEach((e) => assert.strictEqual(e.code, "VALIDATION_ERROR"))
            return { fields: errors.map((e) => e.field), text: res.text }
          }
        )
      const base = { name: "P", protocol_type: "native", base_url: "https://p.example" }
      const cases: ReadonlyArray<[unknown, ReadonlyArray<string>]> = [
        [{ ...base, base_url: "http://partner.example" }, ["base_url"]],
        [{ ...base, base_url: "http://10.0.0.1" }, ["base_url"]],
        [{ ...base, base_url: "ftp://partner.example" }, ["base_url"]],
        [{ ...base, base_url: "https://user:pw@partner.example" }, ["base_url"]],
        [{ ...base, base_url: "not a url" }, ["base_url"]],
        [{ ...base, webhook_url: "http://partner.example/hook" }, ["webhook_url"]],
        [{ ...base, protocol_type: "smtp" }, ["protocol_type"]],
        [{ ...base, name: "   " }, ["name"]],
        [{ ...base, credentials: { api_key: "k" } }, ["credentials.signing_secret"]],
        [{ ...base, credentials: { api_key: "k", signing_secret: "s", extra: "x" } }, ["credentials.extra"]],
        [{ ...base, credentials: { api_key: "", signing_secret: "s" } }, ["credentials.api_key"]],
        [{ ...base, credentials: "secret" }, ["credentials"]],
        [{ ...base, settings: { credit_limit: -1 } }, ["settings.credit_limit"]],
        [{ ...base, settings: { credit_limit: 1.234 } }, ["settings.credit_limit"]],
        [{ ...base, settings: { credit_limit: "10" } }, ["settings.credit_limit"]],
        [{ name: "P" }, ["protocol_type", "base_url"]]
      ]
      for (const [body, fields] of cases) {
        const got = yield* fieldsOf(body)
        assert.deepStrictEqual([...got.fields].sort(), [...fields].sort(), JSON.stringify(body))
      }
      // A secret sent with the wrong type is not echoed back.
      const echoed = yield* fieldsOf({ ...base, credentials: { api_key: 123456789, signing_secret: "s" } })
      assert.notInclude(echoed.text, "123456789")
      const sql = yield* SqlClient.SqlClient
      const [row] = yield* sql<{ n: number }>`
        SELECT count(*)::int AS n FROM federation_partners WHERE tenant_id = ${c.tenant.id}`
      assert.strictEqual(row!.n, 0)
    }))

  it.effect("every route: members 403, anonymous 401, another community's partner and odd ids 404", () =>
    Effect.gen(function*() {
      const c = yield* community()
      const d = yield* community()
      const mine = yield* makePartner(c.tenant, { status: "active" })
      const theirs = yield* makePartner(d.tenant, { status: "active" })
      const routes = (id: number | string): ReadonlyArray<["GET" | "POST" | "PUT" | "DELETE", string, string?]> => [
        ["GET", `${PARTNERS}/${id}`],
        ["PUT", `${PARTNERS}/${id}`, JSON.stringify({ name: "Changed" })],
        ["POST", `${PARTNERS}/${id}/test`],
        ["POST", `${PARTNERS}/${id}/suspend`],
        ["POST", `${PARTNERS}/${id}/reactivate`],
        ["GET", `${PARTNERS}/${id}/position`],
        ["DELETE", `${PARTNERS}/${id}`]
      ]
      const expect =
        (headers: Record<string, string>, status: number, code: string) =>
        (method: "GET" | "POST" | "PUT" | "DELETE", path: string, body?: string) =>
          Effect.map(rawRequest(method, path, { headers, ...(body === undefined ? {} : { body }) }), (res) => {
            assert.strictEqual(res.status, status, `${method} ${path}: ${res.text}`)
            assert.strictEqual((res.body as { errors: Array<{ code: string }> }).errors[0]!.code, code)
          })
      const collection: ReadonlyArray<["GET" | "POST", string, string?]> = [
        ["GET", PARTNERS],
        ["POST", PARTNERS, JSON.stringify({ name: "P", protocol_type: "native", base_url: "https://p.example" })]
      ]
      for (const [method, path, body] of [...collection, ...routes(mine.id)]) {
        yield* expect(c.memberHeaders, 403, "FORBIDDEN")(method, path, body)
        yield* expect(c.anonymous, 401, "AUTH_REQUIRED")(method, path, body)
      }
      for (const [method, path, body] of [...routes(theirs.id), ...routes("abc"), ...routes(0)]) {
        yield* expect(c.adminHeaders, 404, "NOT_FOUND")(method, path, body)
      }
      // Nothing happened to either partner.
      assert.strictEqual(yield* statusOfPartner(mine.id), "active")
      assert.strictEqual(yield* statusOfPartner(theirs.id), "active")
      const list = yield* c.admin.client.federationPartners.list({ urlParams: {} })
      assert.deepStrictEqual(list.data.map((p) => p.id), [mine.id])
    }))

  it.effect("list: offset pages newest first, status filter, only this community's live partners", () =>
    Effect.gen(function*() {
      const c = yield* community()
      const d = yield* community()
      const a = yield* makePartner(c.tenant, { status: "active" })
      const b = yield* makePartner(c.tenant, { status: "suspended" })
      const gone = yield* makePartner(c.tenant, { status: "active" })
      yield* makePartner(d.tenant, { status: "active" })
      yield* c.admin.client.federationPartners.delete({ path: { id: pid(gone.id) } })
      const page1 = yield* c.admin.client.federationPartners.list({ urlParams: { per_page: 1 } })
      assert.deepStrictEqual(page1.data.map((p) => p.id), [b.id])
      assert.deepStrictEqual(page1.meta, { current_page: 1, per_page: 1, total: 2, total_pages: 2, has_more: true })
      const page2 = yield* c.admin.client.federationPartners.list({ urlParams: { page: 2, per_page: 1 } })
      assert.deepStrictEqual(page2.data.map((p) => p.id), [a.id])
      assert.isFalse(page2.meta.has_more)
      const active = yield* c.admin.client.federationPartners.list({ urlParams: { status: "active" } })
      assert.deepStrictEqual(active.data.map((p) => p.id), [a.id])
      const bad = yield* rawRequest("GET", `${PARTNERS}?status=deleted&per_page=101`, { headers: c.adminHeaders })
      assert.strictEqual(bad.status, 422)
    }))

  it.effect("update changes the given fields; credentials are replaced, settings merged", () =>
    Effect.gen(function*() {
      const c = yield* community()
      const client = c.admin.client.federationPartners
      const first = nativeCredentials()
      const created = yield* create(c, {
        name: "Before",
        protocol_type: "native",
        base_url: "https://before.example",
        webhook_url: "https://before.example/hook",
        credentials: first,
        settings: { credit_limit: 10, region: "north" }
      })
      const id = created.data.id
      const renamed = yield* client.update({ path: { id }, payload: { name: "After", webhook_url: null } })
      assert.deepInclude(renamed.data, { name: "After", base_url: "https://before.example", webhook_url: null })
      assert.deepStrictEqual(renamed.data.settings, { credit_limit: 10, region: "north" })

      const merged = yield* client.update({ path: { id }, payload: { settings: { credit_limit: null, tier: 2 } } })
      assert.deepStrictEqual(merged.data.settings, { credit_limit: 100, region: "north", tier: 2 })

      const second = nativeCredentials()
      yield* client.update({ path: { id }, payload: { credentials: second } })
      const box = yield* Effect.provide(SecretBox, SecretBox.Default)
      const sql = yield* SqlClient.SqlClient
      const [row] = yield* sql<{ credentials: string }>`SELECT credentials FROM federation_partners WHERE id = ${id}`
      assert.deepStrictEqual(JSON.parse(yield* box.open(row!.credentials)), second)

      // Native credentials stay complete; turning a partner native checks what it already has.
      const partial = yield* client.update({ path: { id }, payload: { credentials: { api_key: "only" } } }).pipe(
        expectError(422, "VALIDATION_ERROR")
      )
      assert.deepStrictEqual(partial.fields, ["credentials.signing_secret"])
      const other = yield* create(c, {
        name: "TimeOverflow",
        protocol_type: "timeoverflow",
        base_url: "https://to.example",
        credentials: { api_key: "to_fed_abc", webhook_secret: "w" },
        settings: { remote_partner_id: 4 }
      })
      const turned = yield* client.update({ path: { id: other.data.id }, payload: { protocol_type: "native" } }).pipe(
        expectError(422, "VALIDATION_ERROR")
      )
      assert.sameMembers([...turned.fields], ["credentials.webhook_secret", "credentials.signing_secret"])
      const cleared = yield* client.update({
        path: { id: other.data.id },
        payload: { protocol_type: "native", credentials: {} }
      })
      assert.deepInclude(cleared.data, { protocol_type: "native", credentials: {} })
      const [clearedRow] = yield* sql<{ credentials: string | null }>`
        SELECT credentials FROM federation_partners WHERE id = ${other.data.id}`
      assert.isNull(clearedRow!.credentials)

      const bad = yield* rawRequest("PUT", `${PARTNERS}/${id}`, {
        headers: c.adminHeaders,
        body: JSON.stringify({ base_url: "http://example.com", settings: { credit_limit: -5 } })
      })
      assert.strictEqual(bad.status, 422)
      const got = yield* client.get({ path: { id } })
      assert.deepInclude(got.data, { name: "After", base_url: "https://before.example" })
    }))

  it.effect("delete hides the partner and revokes the keys bound to it", () =>
    Effect.gen(function*() {
      const c = yield* community()
      const client = c.admin.client.federationPartners
      const partner = yield* makePartner(c.tenant, { status: "active" })
      const key = yield* makeApiKey(c.tenant, { partnerId: partner.id })
      const unbound = yield* makeApiKey(c.tenant)
      const id = pid(partner.id)
      const deleted = yield* client.delete({ path: { id } })
      assert.deepStrictEqual(deleted.data, { id: partner.id, deleted: true })
      yield* client.get({ path: { id } }).pipe(expectError(404, "NOT_FOUND"))
      yield* client.delete({ path: { id } }).pipe(expectError(404, "NOT_FOUND"))
      const store = yield* Effect.provide(ApiKeyStore, ApiKeyStore.Default)
      assert.isFalse(Option.getOrThrow(yield* store.byApiKey(key.apiKey)).usable)
      assert.isTrue(Option.getOrThrow(yield* store.byApiKey(unbound.apiKey)).usable)
      const sql = yield* SqlClient.SqlClient
      const [row] = yield* sql<{ deleted: boolean }>`
        SELECT deleted_at IS NOT NULL AS deleted FROM federation_partners WHERE id = ${partner.id}`
      assert.isTrue(row!.deleted)
    }))

  it.effect("suspend and reactivate move only between the allowed states", () =>
    Effect.gen(function*() {
      const c = yield* community()
      const client = c.admin.client.federationPartners
      const active = yield* makePartner(c.tenant, { status: "active" })
      const failed = yield* makePartner(c.tenant, { status: "failed" })
      const pending = yield* makePartner(c.tenant, { status: "pending" })
      const suspended = yield* client.suspend({ path: { id: pid(active.id) } })
      assert.strictEqual(suspended.data.status, "suspended")
      const again = yield* client.suspend({ path: { id: pid(active.id) } }).pipe(expectError(409, "INVALID_STATE"))
      assert.include(again.message, "suspended")
      const back = yield* client.reactivate({ path: { id: pid(active.id) } })
      assert.strictEqual(back.data.status, "active")
      yield* client.reactivate({ path: { id: pid(active.id) } }).pipe(expectError(409, "INVALID_STATE"))
      assert.strictEqual((yield* client.suspend({ path: { id: pid(failed.id) } })).data.status, "suspended")
      yield* client.suspend({ path: { id: pid(pending.id) } }).pipe(expectError(409, "INVALID_STATE"))
      yield* client.reactivate({ path: { id: pid(pending.id) } }).pipe(expectError(409, "INVALID_STATE"))
      assert.strictEqual(yield* statusOfPartner(pending.id), "pending")
    }))

  it.scoped("the test call is signed as D13 says; a 2xx activates a pending or failed partner", () =>
    Effect.gen(function*() {
      const c = yield* community()
      const client = c.admin.client.federationPartners
      const ok = yield* receiver(200)
      const credentials = nativeCredentials()
      const pending = yield* makePartner(c.tenant, {
        status: "pending",
        baseUrl: `${ok.url}/base/`,
        credentials
      })
      const before = Date.now()
      const result = yield* client.test({ path: { id: pid(pending.id) } })
      assert.strictEqual(result.data.ok, true)
      assert.strictEqual(result.data.status_code, 200)
      assert.isAtLeast(result.data.latency_ms, 0)
      assert.isUndefined(result.data.error)
      assert.strictEqual(yield* statusOfPartner(pending.id), "active")

      assert.strictEqual(ok.received.length, 1)
      const call = ok.received[0]!
      assert.strictEqual(call.url, "/base/api/v1/federation/webhooks/test")
      assert.isTrue(signatureHolds(call, credentials.signing_secret))
      assert.strictEqual(call.headers["authorization"], `Bearer ${credentials.api_key}`)
      assert.strictEqual(call.headers["x-federation-platform-id"], credentials.api_key.slice(0, 12))
      assert.strictEqual(call.headers["content-type"], "application/json")
      assert.match(call.headers["x-federation-nonce"] as string, /^[0-9a-f-]{36}$/)
      assert.approximately(Number(call.headers["x-federation-timestamp"]), Math.floor(before / 1000), 5)
      const body = JSON.parse(call.body) as Record<string, unknown>
      assert.deepStrictEqual(Object.keys(body).sort(), ["data", "event", "id", "occurred_at", "tenant"])
      assert.deepInclude(body, { event: "test", data: {}, tenant: { id: c.tenant.id, slug: c.tenant.slug } })
      assert.strictEqual(call.headers["x-federation-webhook-id"], body["id"])
      assert.approximately(Date.parse(body["occurred_at"] as string), before, 5000)

      // The webhook URL wins over the base URL; a failed partner comes back; a suspended one stays suspended.
      const failed = yield* makePartner(c.tenant, {
        status: "failed",
        baseUrl: "https://unused.example",
        webhookUrl: `${ok.url}/hooks?x=1`,
        credentials
      })
      assert.isTrue((yield* client.test({ path: { id: pid(failed.id) } })).data.ok)
      assert.strictEqual(ok.received[1]!.url, "/hooks?x=1")
      assert.isTrue(signatureHolds(ok.received[1]!, credentials.signing_secret))
      assert.strictEqual(yield* statusOfPartner(failed.id), "active")
      const suspended = yield* makePartner(c.tenant, { status: "suspended", baseUrl: ok.url, credentials })
      assert.isTrue((yield* client.test({ path: { id: pid(suspended.id) } })).data.ok)
      assert.strictEqual(yield* statusOfPartner(suspended.id), "suspended")
    }))

  it.scoped("a failed test call changes nothing and says why", () =>
    Effect.gen(function*() {
      const c = yield* community()
      const client = c.admin.client.federationPartners
      const broken = yield* receiver(500)
      const credentials = nativeCredentials()
      const pending = yield* makePartner(c.tenant, { status: "pending", baseUrl: broken.url, credentials })
      const answered = yield* rawRequest("POST", `${PARTNERS}/${pending.id}/test`, { headers: c.adminHeaders })
      assert.strictEqual(answered.status, 200)
      const data = (answered.body as { data: Record<string, unknown> }).data
      assert.deepInclude(data, { ok: false, status_code: 500 })
      assert.include(data["error"] as string, "500")
      assert.notInclude(answered.text, credentials.api_key)
      assert.notInclude(answered.text, credentials.signing_secret)
      assert.strictEqual(broken.received.length, 1)
      assert.strictEqual(yield* statusOfPartner(pending.id), "pending")

      // Nobody listening: no status code.
      yield* Effect.promise(broken.close)
      const refused = yield* client.test({ path: { id: pid(pending.id) } })
      assert.deepInclude(refused.data, { ok: false, status_code: null })
      assert.isString(refused.data.error)
      assert.strictEqual(yield* statusOfPartner(pending.id), "pending")

      // Without credentials there is nothing to sign with: no call is made.
      const listening = yield* receiver(200)
      const bare = yield* makePartner(c.tenant, { status: "pending", baseUrl: listening.url })
      const unsigned = yield* client.test({ path: { id: pid(bare.id) } })
      assert.deepInclude(unsigned.data, { ok: false, status_code: null })
      assert.include(unsigned.data.error!, "api_key")
      assert.strictEqual(listening.received.length, 0)
      assert.strictEqual(yield* statusOfPartner(bare.id), "pending")

      // A key no HTTP header can carry is a failed test, not a 500, and its value is not echoed.
      const unsendable = yield* makePartner(c.tenant, {
        status: "pending",
        baseUrl: listening.url,
        credentials: { api_key: "tbk_line\nbreak-UNSENDABLE", signing_secret: "s" }
      })
      const refusedLocally = yield* rawRequest("POST", `${PARTNERS}/${unsendable.id}/test`, { headers: c.adminHeaders })
      assert.strictEqual(refusedLocally.status, 200)
      assert.deepInclude((refusedLocally.body as { data: object }).data, { ok: false, status_code: null })
      assert.notInclude(refusedLocally.text, "UNSENDABLE")
      assert.strictEqual(listening.received.length, 0)
    }))

  it.scoped(
    "a partner that accepts the connection and never answers ends as a timeout after 10 s",
    () =>
      Effect.gen(function*() {
        const c = yield* community()
        const hole = yield* receiver("hang")
        const partner = yield* makePartner(c.tenant, {
          status: "pending",
          baseUrl: hole.url,
          credentials: nativeCredentials()
        })
        const started = Date.now()
        const result = yield* c.admin.client.federationPartners.test({ path: { id: pid(partner.id) } })
        const elapsed = Date.now() - started
        assert.deepInclude(result.data, { ok: false, status_code: null })
        assert.include(result.data.error!, "timeout")
        assert.isAtLeast(elapsed, 9_500)
        assert.isAtMost(elapsed, 12_000)
        assert.strictEqual(hole.received.length, 1)
        assert.strictEqual(yield* statusOfPartner(partner.id), "pending")
      }),
    30_000
  )

  it.effect("position: the clearing balance, the credit limit and the number of transactions", () =>
    Effect.gen(function*() {
      const c = yield* community()
      const client = c.admin.client.federationPartners
      const partner = yield* makePartner(c.tenant, { status: "active", settings: { credit_limit: 40 } })
      const empty = yield* client.position({ path: { id: pid(partner.id) } })
      assert.deepStrictEqual(empty.data, { balance: 0, credit_limit: 40, transactions: 0 })

      // The partner sent 2.5 hours to a member: its clearing account is at -2.5.
      const sql = yield* SqlClient.SqlClient
      const [account] = yield* sql<{ id: string }>`
        INSERT INTO ledger_accounts (tenant_id, kind, owner_id, balance)
        VALUES (${c.tenant.id}, 'partner', ${partner.id}, -2.5) RETURNING id`
      assert.isDefined(account)
      const [tx] = yield* sql<{ id: string }>`
        INSERT INTO ledger_transactions (tenant_id, type, amount, recipient_id, idempotency_key, request_hash)
        VALUES (${c.tenant.id}, 'federated', 2.5, ${c.member.id}, ${`test:${partner.id}`}, 'h') RETURNING id`
      yield* sql`
        INSERT INTO federation_transactions (tenant_id, partner_id, external_id, request_hash, transaction_id,
          recipient_id, amount, sender_name, sender_external_id)
        VALUES (${c.tenant.id}, ${partner.id}, 'ext-1', 'h', ${tx!.id}, ${c.member.id}, 2.5, 'Remote', 'r1')`
      const moved = yield* client.position({ path: { id: pid(partner.id) } })
      assert.deepStrictEqual(moved.data, { balance: -2.5, credit_limit: 40, transactions: 1 })

      const fresh = yield* makePartner(c.tenant, {})
      const defaults = yield* client.position({ path: { id: pid(fresh.id) } })
      assert.deepStrictEqual(defaults.data, { balance: 0, credit_limit: 100, transactions: 0 })
      const failure = yield* failureOf(c.member.client.federationPartners.position({ path: { id: pid(partner.id) } }))
      assert.strictEqual(failure.status, 403)
    }))
})
