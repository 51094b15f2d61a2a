import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import type { CreatePartner } from "@timebank/domain"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { expectError, expectOk } from "../fixtures/client.js"
import { type Community, community } from "../fixtures/community.js"
import { rawRequest, TestApp } from "../fixtures/TestApp.js"

/**
 * Partner credentials and settings are checked per protocol (decisions D16, through the protocol registry): exactly
 * the protocol's credential names (422 `credentials.<k>` for a missing or an unknown one; none at all is allowed
 * while the partner is being set up) and its settings (422 `settings.<k>`), on create and on update.
 */

const PARTNERS = "/api/v2/admin/federation/partners"

/** Settings each protocol accepts (D16). */
const VALID_SETTINGS = {
  native: {},
  komunitin: { currency_code: "TEST", payer_account_id: randomUUID() },
  credit_commons: { our_node_path: "trunk/branch1", peer_node_path: "trunk/branch2" },
  timeoverflow: { remote_partner_id: 4 }
} as const

/** Each protocol's credentials: those it requires (and takes). */
const VALID_CREDENTIALS = {
  native: { api_key: "tbk_k", signing_secret: "tbs_s" },
  komunitin: { access_token: "token" },
  credit_commons: { hash_seed: "trunk" },
  timeoverflow: { api_key: "to_fed_k", webhook_secret: "w" }
} as const

type Protocol = keyof typeof VALID_SETTINGS

/** The fields of a 422 `VALIDATION_ERROR` to the raw create body, sorted; nothing stored. */
const refusedFields = (c: Community, body: Record<string, unknown>) =>
  Effect.map(rawRequest("POST", PARTNERS, { headers: c.adminHeaders, body: JSON.stringify(body) }), (res) => {
    assert.strictEqual(res.status, 422, `${JSON.stringify(body)}: ${res.text}`)
    const errors = (res.body as { errors: ReadonlyArray<{ code: string; field?: string }> }).errors
    errors.forEach((e) => assert.strictEqual(e.code, "VALIDATION_ERROR"))
    return errors.map((e) => e.field ?? "").sort()
  })

const partnerCount = (tenantId: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM federation_partners WHERE tenant_id = ${tenantId}`
  ).pipe(
    Effect.map((rows) => rows[0]!.n),
    Effect.orDie
  )

layer(TestApp(), { excludeTestServices: true, timeout: "120 seconds" })("federation partner validation", (it) => {
  it.effect("create: each protocol's missing and unknown credentials and its settings are 422 per field", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      const base = (protocol: Protocol) => ({
        name: "P",
        protocol_type: protocol,
        base_url: "https://p.example",
        settings: VALID_SETTINGS[protocol]
      })
      const cases: ReadonlyArray<[Record<string, unknown>, ReadonlyArray<string>]> = [
        [{ ...base("native"), credentials: { api_key: "k" } }, ["credentials.signing_secret"]],
        [{ ...base("native"), credentials: { ...VALID_CREDENTIALS.native, webhook_secret: "w" } }, [
          "credentials.webhook_secret"
        ]],
        [{ ...base("timeoverflow"), credentials: { api_key: "k" } }, ["credentials.webhook_secret"]],
        [{ ...base("timeoverflow"), credentials: { ...VALID_CREDENTIALS.timeoverflow, signing_secret: "s" } }, [
          "credentials.signing_secret"
        ]],
        [{ ...base("timeoverflow"), settings: {} }, ["settings.remote_partner_id"]],
        [{ ...base("timeoverflow"), settings: { remote_partner_id: "4" } }, ["settings.remote_partner_id"]],
        [{ ...base("timeoverflow"), settings: { remote_partner_id: 0 } }, ["settings.remote_partner_id"]],
        [{ ...base("timeoverflow"), settings: { remote_partner_id: 2.5 } }, ["settings.remote_partner_id"]],
        [{ ...base("komunitin"), credentials: { client_id: "a", client_secret: "b" } }, [
          "credentials.access_token",
          "credentials.client_id",
          "credentials.client_secret"
        ]],
        [{ ...base("komunitin"), settings: {} }, ["settings.currency_code", "settings.payer_account_id"]],
        [{ ...base("credit_commons"), credentials: { token: "t" } }, ["credentials.hash_seed", "credentials.token"]],
        [{ ...base("credit_commons"), settings: {} }, ["settings.our_node_path", "settings.peer_node_path"]],
        // Both kinds at once, with the schema's own checks.
        [{ ...base("timeoverflow"), credentials: { api_key: "k" }, settings: { credit_limit: -1 } }, [
          "settings.credit_limit"
        ]],
        [{ ...base("timeoverflow"), credentials: { webhook_secret: "w" }, settings: {} }, [
          "credentials.api_key",
          "settings.remote_partner_id"
        ]]
      ]
      for (const [body, fields] of cases) {
        assert.deepStrictEqual(yield* refusedFields(c, body), [...fields].sort(), JSON.stringify(body))
      }
      assert.strictEqual(yield* partnerCount(c.tenant.id), 0)
    }))

  it.effect("create: every protocol takes its own names, its optional ones, or none yet (pending)", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      const create = (payload: CreatePartner) => expectOk(c.admin.client.federationPartners.create({ payload }))
      for (const protocol of ["native", "komunitin", "credit_commons", "timeoverflow"] as const) {
        const full = yield* create({
          name: `Full ${protocol}`,
          protocol_type: protocol,
          base_url: "https://p.example",
          credentials: VALID_CREDENTIALS[protocol],
          settings: VALID_SETTINGS[protocol]
        })
        assert.deepStrictEqual(
          Object.keys(full.data.credentials).sort(),
          Object.keys(VALID_CREDENTIALS[protocol]).sort(),
          protocol
        )
        const none = yield* create({
          name: `Bare ${protocol}`,
          protocol_type: protocol,
          base_url: "https://p.example",
          settings: VALID_SETTINGS[protocol]
        })
        assert.deepInclude(none.data, { status: "pending", credentials: {} }, protocol)
      }
      const keyed = yield* create({
        name: "Keyed Komunitin",
        protocol_type: "komunitin",
        base_url: "https://k.example",
        credentials: { access_token: "t", komunitin_public_keys: "GABC" },
        settings: VALID_SETTINGS.komunitin
      })
      assert.deepStrictEqual(keyed.data.credentials, { access_token: true, komunitin_public_keys: true })
      assert.strictEqual(yield* partnerCount(c.tenant.id), 9)
    }))

  it.effect("update: changed credentials and settings are checked against the (new) protocol", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      const client = c.admin.client.federationPartners
      const created = yield* expectOk(client.create({
        payload: {
          name: "TimeOverflow",
          protocol_type: "timeoverflow",
          base_url: "https://to.example",
          credentials: VALID_CREDENTIALS.timeoverflow,
          settings: VALID_SETTINGS.timeoverflow
        }
      }))
      const id = created.data.id
      const fieldsOf = (payload: Parameters<typeof client.update>[0]["payload"]) =>
        Effect.map(
          client.update({ path: { id }, payload }).pipe(expectError(422, "VALIDATION_ERROR")),
          (e) => [...e.fields].sort()
        )

      assert.deepStrictEqual(yield* fieldsOf({ settings: { remote_partner_id: null } }), ["settings.remote_partner_id"])
      assert.deepStrictEqual(yield* fieldsOf({ settings: { remote_partner_id: -3 } }), ["settings.remote_partner_id"])
      assert.deepStrictEqual(yield* fieldsOf({ credentials: { api_key: "k", token: "t" } }), [
        "credentials.token",
        "credentials.webhook_secret"
      ])
      // Turned into another protocol, what the partner holds is checked against it.
      assert.deepStrictEqual(yield* fieldsOf({ protocol_type: "credit_commons" }), [
        "credentials.api_key",
        "credentials.hash_seed",
        "credentials.webhook_secret",
        "settings.our_node_path",
        "settings.peer_node_path"
      ])
      // Nothing of that was stored.
      const unchanged = yield* expectOk(client.get({ path: { id } }))
      assert.deepInclude(unchanged.data, {
        protocol_type: "timeoverflow",
        credentials: { api_key: true, webhook_secret: true }
      })
      assert.strictEqual(unchanged.data.settings["remote_partner_id"], 4)

      // Changes that hold are kept; a change of name alone checks nothing else.
      const moved = yield* expectOk(client.update({
        path: { id },
        payload: {
          protocol_type: "credit_commons",
          credentials: VALID_CREDENTIALS.credit_commons,
          settings: { ...VALID_SETTINGS.credit_commons, remote_partner_id: null }
        }
      }))
      assert.deepInclude(moved.data, { protocol_type: "credit_commons", credentials: { hash_seed: true } })
      assert.isUndefined(moved.data.settings["remote_partner_id"])
      const renamed = yield* expectOk(client.update({ path: { id }, payload: { name: "Renamed" } }))
      assert.strictEqual(renamed.data.name, "Renamed")
    }))
})
