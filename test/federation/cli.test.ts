import type { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { AppConfig, hashApiKey, Redis } from "@timebank/server"
import { ConfigProvider, Context, Effect, Layer } from "effect"
import { randomBytes, randomUUID } from "node:crypto"
import { tmpdir } from "node:os"
import { join } from "node:path"
import pg from "pg"
import { federationOn, makePartner } from "../fixtures/federation.js"
import { runCli } from "../fixtures/processes.js"
import { freshDatabase, pgClientLayer } from "../fixtures/TestDatabase.js"
import { partnerCredentials, webhookReceiver } from "./webhookReceiver.js"

interface CliRun {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

interface KeyJson {
  readonly id: number
  readonly name: string
  readonly key_prefix: string
  readonly api_key?: string
  readonly signing_secret?: string
  readonly scopes: ReadonlyArray<string>
  readonly rate_limit_per_minute: number
  readonly signing: boolean
  readonly status: string
  readonly partner_id: number | null
  readonly expires_at: string | null
  readonly revoked_at: string | null
}

type Errors = { readonly errors: ReadonlyArray<{ code: string; message: string; field?: string }> }

/** A database, and the secrets key and data directory the commands share (never the checkout's `.data`). */
class CliEnv extends Context.Tag("FederationCliEnv")<CliEnv, Record<string, string>>() {
  static readonly Live = Layer.scoped(
    CliEnv,
    Effect.map(freshDatabase, (db) => ({
      DATABASE_URL: db.url,
      SECRETS_KEY: randomBytes(32).toString("hex"),
      DATA_DIR: join(tmpdir(), "timebank-test", `cli-${randomBytes(4).toString("hex")}`)
    }))
  )
}

/** `npm run cli -- ...args`, as the operator runs it. */
const cli = (...args: Array<string>) => Effect.flatMap(CliEnv, (env) => runCli(env, ...args))

const jsonOf = <A>(run: CliRun): A => JSON.parse(run.stdout) as A

const query = (text: string, values: Array<unknown> = []) =>
  Effect.flatMap(CliEnv, (env) =>
    Effect.promise(async () => {
      const client = new pg.Client({ connectionString: env["DATABASE_URL"] })
      await client.connect()
      try {
        return (await client.query(text, values)).rows as Array<Record<string, unknown>>
      } finally {
        await client.end()
      }
    }))

/** Runs a federation kit fixture on the commands' database, sealing secrets under their SECRETS_KEY. */
const onCliDatabase = <A, E>(effect: Effect.Effect<A, E, SqlClient.SqlClient | AppConfig | Redis>) =>
  Effect.flatMap(CliEnv, (env) =>
    effect.pipe(
      Effect.provide(Redis.Default),
      Effect.provide(AppConfig.Default),
      Effect.provide(pgClientLayer(env["DATABASE_URL"]!)),
      Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))
    ))

/** A fresh tenant made with `tenant create`: its id and slug. */
const newTenant = Effect.gen(function*() {
  const slug = `fed-${randomBytes(4).toString("hex")}`
  const run = yield* cli("tenant", "create", "--slug", slug, "--name", "Federating", "--json")
  assert.strictEqual(run.code, 0, run.stderr)
  return { id: jsonOf<{ id: number }>(run).id, slug }
})

// Each command is a Node process of its own (several seconds on a busy machine).
const TIMEOUT = 300_000

layer(CliEnv.Live, { excludeTestServices: true, timeout: "90 seconds" })("cli federation keys", (it) => {
  it.effect(
    "create prints the key and signing secret once; the database keeps the hash and a sealed secret",
    () =>
      Effect.gen(function*() {
        const tenant = yield* newTenant
        const [asJson, asText] = yield* Effect.all([
          cli(
            ...["federation", "keys", "create", "--tenant", tenant.slug, "--name", "Riverside"],
            ...["--scopes", "listings:read, events:read,listings:read", "--signing", "--rate-limit", "120", "--json"]
          ),
          cli(
            "federation",
            "keys",
            "create",
            "--tenant",
            String(tenant.id),
            "--name",
            "Plain",
            "--scopes",
            "groups:read"
          )
        ], { concurrency: "unbounded" })
        assert.strictEqual(asJson.code, 0, asJson.stderr)
        const key = jsonOf<KeyJson>(asJson)
        assert.match(key.api_key!, /^tbk_[0-9a-f]{64}$/)
        assert.match(key.signing_secret!, /^tbs_[0-9a-f]{64}$/)
        assert.deepInclude(key, {
          name: "Riverside",
          key_prefix: key.api_key!.slice(0, 12),
          scopes: ["listings:read", "events:read"],
          rate_limit_per_minute: 120,
          signing: true,
          status: "active",
          partner_id: null,
          expires_at: null
        })
        const [row] = yield* query(
          "SELECT tenant_id, key_hash, signing_secret, created_by FROM federation_api_keys WHERE id = $1",
          [key.id]
        )
        assert.strictEqual(Number(row!["tenant_id"]), tenant.id)
        assert.strictEqual(row!["key_hash"], hashApiKey(key.api_key!))
        assert.notInclude(String(row!["signing_secret"]), key.signing_secret!.slice(4))
        assert.isNull(row!["created_by"])

        // In words: one line naming the key, and the key itself once, marked as shown only now; no signing secret.
        assert.strictEqual(asText.code, 0, asText.stderr)
        const lines = asText.stdout.trim().split("\n")
        assert.match(
          lines[0]!,
          new RegExp(`^created API key \\d+ "Plain" \\(tbk_[0-9a-f]{8}…, active\\) in tenant ${tenant.id}`)
        )
        assert.match(lines[1]!, /^api_key: tbk_[0-9a-f]{64} \(shown only now\)$/)
        assert.strictEqual(lines.length, 2)
      }),
    TIMEOUT
  )

  it.effect(
    "list shows the tenant's keys without secrets; revoke revokes once; refusals are typed",
    () =>
      Effect.gen(function*() {
        const tenant = yield* newTenant
        const other = yield* newTenant
        const created = jsonOf<KeyJson>(
          yield* cli(
            "federation",
            "keys",
            "create",
            "--tenant",
            tenant.slug,
            "--name",
            "To go",
            "--scopes",
            "members:read",
            "--json"
          )
        )
        const [revoked, elsewhere, oddId] = yield* Effect.all([
          cli("federation", "keys", "revoke", String(created.id), "--tenant", tenant.slug, "--json"),
          cli("federation", "keys", "revoke", String(created.id), "--tenant", other.slug, "--json"),
          cli("federation", "keys", "revoke", "abc", "--tenant", tenant.slug, "--json")
        ], { concurrency: "unbounded" })
        assert.strictEqual(revoked.code, 0, revoked.stderr)
        assert.deepInclude(jsonOf<KeyJson>(revoked), { id: created.id, status: "revoked" })
        assert.isString(jsonOf<KeyJson>(revoked).revoked_at)
        assert.notProperty(jsonOf<KeyJson>(revoked), "api_key")
        for (const refused of [elsewhere, oddId]) {
          assert.strictEqual(refused.code, 3)
          assert.strictEqual(jsonOf<Errors>(refused).errors[0]?.code, "NOT_FOUND")
        }

        const [again, listed, listedText, onlyActive] = yield* Effect.all([
          cli("federation", "keys", "revoke", String(created.id), "--tenant", tenant.slug),
          cli("federation", "keys", "list", "--tenant", tenant.slug, "--json"),
          cli("federation", "keys", "list", "--tenant", tenant.slug),
          cli("federation", "keys", "list", "--tenant", tenant.slug, "--status", "active", "--json")
        ], { concurrency: "unbounded" })
        assert.strictEqual(again.code, 5)
        assert.match(again.stderr, /^error: ALREADY_REVOKED: /m)
        const [state] = yield* query("SELECT status FROM federation_api_keys WHERE id = $1", [created.id])
        assert.strictEqual(state!["status"], "revoked")

        assert.strictEqual(listed.code, 0, listed.stderr)
        const keys = jsonOf<Array<KeyJson>>(listed)
        assert.deepStrictEqual(keys.map((k) => [k.id, k.status]), [[created.id, "revoked"]])
        assert.notProperty(keys[0]!, "api_key")
        assert.notInclude(listed.stdout, created.api_key!)
        assert.match(listedText.stdout, /^ID\s+PREFIX\s+NAME\s+STATUS/)
        assert.include(listedText.stdout, created.key_prefix)
        assert.deepStrictEqual(jsonOf<Array<KeyJson>>(onlyActive), [])
      }),
    TIMEOUT
  )

  it.effect(
    "bad input is VALIDATION_ERROR per field (exit 2); an unknown tenant is NOT_FOUND (exit 3); nothing is stored",
    () =>
      Effect.gen(function*() {
        const tenant = yield* newTenant
        const create = (...extra: Array<string>) =>
          cli("federation", "keys", "create", "--tenant", tenant.slug, "--name", "X", ...extra, "--json")
        const past = new Date(Date.now() - 60_000).toISOString()
        const runs = yield* Effect.all([
          create("--scopes", "listings:read,listings:write"),
          create("--scopes", ","),
          create("--scopes", "groups:read", "--rate-limit", "0"),
          create("--scopes", "groups:read", "--rate-limit", "many"),
          create("--scopes", "groups:read", "--partner", "999999"),
          create("--scopes", "groups:read", "--expires-at", past),
          cli("federation", "keys", "list", "--tenant", tenant.slug, "--status", "expired", "--json"),
          cli(
            "federation",
            "keys",
            "create",
            "--tenant",
            "no-such-tenant",
            "--name",
            "X",
            "--scopes",
            "groups:read",
            "--json"
          )
        ], { concurrency: "unbounded" })
        const expected = [
          ["VALIDATION_ERROR", "scopes.1"],
          ["VALIDATION_ERROR", "scopes"],
          ["VALIDATION_ERROR", "rate_limit_per_minute"],
          ["VALIDATION_ERROR", "rate_limit_per_minute"],
          ["VALIDATION_ERROR", "partner_id"],
          ["VALIDATION_ERROR", "expires_at"],
          ["VALIDATION_ERROR", "status"],
          ["NOT_FOUND", undefined]
        ]
        runs.forEach((run, i) => {
          const [code, field] = expected[i]!
          assert.strictEqual(run.code, code === "NOT_FOUND" ? 3 : 2, `${i}: ${run.stdout} ${run.stderr}`)
          assert.deepStrictEqual([jsonOf<Errors>(run).errors[0]?.code, jsonOf<Errors>(run).errors[0]?.field], [
            code,
            field
          ], `${i}: ${run.stdout}`)
        })
        const [count] = yield* query("SELECT count(*)::int AS n FROM federation_api_keys WHERE tenant_id = $1", [
          tenant.id
        ])
        assert.strictEqual(count!["n"], 0)

        // Flags that do not fit the command are usage errors (exit 2).
        const [noScopes, foreignFlag] = yield* Effect.all([
          cli("federation", "keys", "create", "--tenant", tenant.slug, "--name", "X", "--json"),
          cli("federation", "keys", "list", "--tenant", tenant.slug, "--signing", "--json")
        ], { concurrency: "unbounded" })
        for (const run of [noScopes, foreignFlag]) {
          assert.strictEqual(run.code, 2)
          assert.strictEqual(jsonOf<Errors>(run).errors[0]?.code, "USAGE_ERROR")
        }
      }),
    TIMEOUT
  )
})

interface PartnerJson {
  readonly id: number
  readonly name: string
  readonly protocol_type: string
  readonly status: string
  readonly base_url: string
  readonly webhook_url: string | null
  readonly credentials: Record<string, true>
}

interface DeliveryJson {
  readonly id: number
  readonly webhook_id: string
  readonly event: string
  readonly status: string
  readonly attempts: number
  readonly last_status_code: number | null
  readonly last_error: string | null
  readonly delivered_at: string | null
}

/** A delivery row of `partner` as the outbound subscriber would have left it after `attempts` failed attempts. */
const insertDelivery = (
  tenant: { readonly id: number; readonly slug: string },
  partnerId: number,
  status: "dead" | "retrying" | "delivered",
  attempts: number
) =>
  Effect.gen(function*() {
    const webhookId = randomUUID()
    const body = {
      tenant: { id: tenant.id, slug: tenant.slug },
      occurred_at: new Date().toISOString(),
      data: { id: 7, title: "Garden help" }
    }
    const [row] = yield* query(
      `INSERT INTO federation_deliveries
         (tenant_id, partner_id, webhook_id, event, body, source_key, status, attempts, last_status_code, last_error)
       VALUES ($1, $2, $3, 'listing.created', $4, $5, $6, $7, 500, 'answered with HTTP 500') RETURNING id::int`,
      [tenant.id, partnerId, webhookId, JSON.stringify(body), `listing:${webhookId}`, status, attempts]
    )
    return { id: row!["id"] as number, webhookId }
  })

layer(CliEnv.Live, { excludeTestServices: true, timeout: "90 seconds" })(
  "cli federation partners, deliveries",
  (it) => {
    it.effect(
      "partners list shows every partner of the tenant, all pages, with credential names only; --status filters",
      () =>
        Effect.gen(function*() {
          const [tenant, other, crowded] = yield* Effect.all([newTenant, newTenant, newTenant], {
            concurrency: "unbounded"
          })
          const credentials = partnerCredentials()
          const signed = yield* onCliDatabase(makePartner(tenant, {
            name: "Riverside Timebank",
            baseUrl: "https://riverside.example",
            webhookUrl: "https://riverside.example/hooks",
            credentials
          }))
          const pending = yield* onCliDatabase(makePartner(tenant, { name: "Hillside", status: "pending" }))
          yield* onCliDatabase(makePartner(other, { name: "Elsewhere", credentials: partnerCredentials() }))
          // More than one page (100) of partners.
          yield* query(
            `INSERT INTO federation_partners (tenant_id, name, protocol_type, base_url, status)
           SELECT $1, 'Bulk ' || n, 'native', 'https://bulk.example', 'active' FROM generate_series(1, 101) n`,
            [crowded.id]
          )

          const [listed, listedText, onlyPending, onlyActiveText, many, badStatus, noTenant] = yield* Effect.all([
            cli("federation", "partners", "list", "--tenant", tenant.slug, "--json"),
            cli("federation", "partners", "list", "--tenant", String(tenant.id)),
            cli("federation", "partners", "list", "--tenant", tenant.slug, "--status", "pending", "--json"),
            cli("federation", "partners", "list", "--tenant", tenant.slug, "--status", "active"),
            cli("federation", "partners", "list", "--tenant", crowded.slug, "--json"),
            cli("federation", "partners", "list", "--tenant", tenant.slug, "--status", "deleted", "--json"),
            cli("federation", "partners", "list", "--tenant", "no-such-tenant", "--json")
          ], { concurrency: "unbounded" })

          assert.strictEqual(listed.code, 0, listed.stderr)
          const partners = jsonOf<Array<PartnerJson>>(listed)
          assert.deepStrictEqual(partners.map((p) => p.id), [pending.id, signed.id])
          assert.deepInclude(partners[1]!, {
            name: "Riverside Timebank",
            protocol_type: "native",
            status: "active",
            base_url: "https://riverside.example",
            webhook_url: "https://riverside.example/hooks",
            credentials: { api_key: true, signing_secret: true }
          })
          assert.deepStrictEqual(partners[0]!.credentials, {})

          assert.strictEqual(listedText.code, 0, listedText.stderr)
          const lines = listedText.stdout.trim().split("\n")
          assert.match(lines[0]!, /^ID\s+NAME\s+PROTOCOL\s+STATUS\s+BASE URL\s+WEBHOOK URL\s+CREDENTIALS\s+CREATED$/)
          assert.strictEqual(lines.length, 3)
          assert.match(
            lines[2]!,
            new RegExp(
              `^${signed.id}\\s+Riverside Timebank\\s+native\\s+active\\s+https://riverside\\.example\\s+` +
                `https://riverside\\.example/hooks\\s+api_key,signing_secret\\s+\\d{4}-\\d\\d-\\d\\dT`
            )
          )
          assert.match(lines[1]!, new RegExp(`^${pending.id}\\s+Hillside\\s+native\\s+pending\\s+\\S+\\s+-\\s+-\\s+`))
          // The secrets appear nowhere, whole or in part.
          for (const run of [listed, listedText]) {
            for (const secret of [credentials.api_key, credentials.signing_secret]) {
              assert.notInclude(run.stdout + run.stderr, secret.slice(4, 20))
            }
            assert.notInclude(run.stdout, "Elsewhere")
          }

          assert.deepStrictEqual(jsonOf<Array<PartnerJson>>(onlyPending).map((p) => [p.id, p.status]), [
            [pending.id, "pending"]
          ])
          assert.strictEqual(onlyActiveText.code, 0, onlyActiveText.stderr)
          assert.include(onlyActiveText.stdout, "Riverside Timebank")
          assert.notInclude(onlyActiveText.stdout, "Hillside")

          assert.strictEqual(many.code, 0, many.stderr)
          assert.strictEqual(new Set(jsonOf<Array<PartnerJson>>(many).map((p) => p.id)).size, 101)

          assert.strictEqual(badStatus.code, 2)
          assert.deepStrictEqual(jsonOf<Errors>(badStatus).errors.map((e) => [e.code, e.field]), [
            ["VALIDATION_ERROR", "status"]
          ])
          assert.strictEqual(noTenant.code, 3)
          assert.strictEqual(jsonOf<Errors>(noTenant).errors[0]?.code, "NOT_FOUND")
        }),
      TIMEOUT
    )

    it.effect(
      "deliveries retry sends a dead delivery once now and prints it; delivered ones and unknown ids are refused",
      () =>
        Effect.gen(function*() {
          const tenant = yield* newTenant
          yield* onCliDatabase(federationOn(tenant))
          const credentials = partnerCredentials()
          const receiver = yield* webhookReceiver(credentials.signing_secret, 200)
          const partner = yield* onCliDatabase(makePartner(tenant, { webhookUrl: receiver.url, credentials }))
          const [dead, deadToo, retrying] = yield* Effect.all([
            insertDelivery(tenant, partner.id, "dead", 8),
            insertDelivery(tenant, partner.id, "dead", 8),
            insertDelivery(tenant, partner.id, "retrying", 2)
          ])

          const [asJson, asText] = yield* Effect.all([
            cli("federation", "deliveries", "retry", String(dead.id), "--json"),
            cli("federation", "deliveries", "retry", String(deadToo.id))
          ], { concurrency: "unbounded" })
          assert.strictEqual(asJson.code, 0, asJson.stderr)
          assert.deepInclude(jsonOf<DeliveryJson>(asJson), {
            id: dead.id,
            webhook_id: dead.webhookId,
            event: "listing.created",
            status: "delivered",
            attempts: 9,
            last_status_code: 200,
            last_error: null
          })
          assert.isString(jsonOf<DeliveryJson>(asJson).delivered_at)
          assert.strictEqual(asText.code, 0, asText.stderr)
          assert.deepStrictEqual(asText.stdout.trim().split("\n").slice(0, 4), [
            `delivery ${deadToo.id} (listing.created, webhook ${deadToo.webhookId}): delivered`,
            "attempts: 9",
            "last status code: 200",
            "last error: -"
          ])

          // The partner got each once, signed, with the delivery's own webhook id.
          assert.deepStrictEqual(
            receiver.received.map((r) => r.body.id).sort(),
            [dead.webhookId, deadToo.webhookId].sort()
          )
          for (const request of receiver.received) {
            assert.isTrue(request.signed)
            assert.strictEqual(request.headers["x-federation-webhook-id"], request.body.id)
            assert.strictEqual(request.headers["authorization"], `Bearer ${credentials.api_key}`)
          }
          const [row] = yield* query(
            `SELECT status, attempts, delivered_at IS NOT NULL AS delivered,
                  (SELECT array_agg(status_code) FROM federation_delivery_attempts WHERE delivery_id = d.id) AS codes
           FROM federation_deliveries d WHERE id = $1`,
            [dead.id]
          )
          assert.deepStrictEqual(row, { status: "delivered", attempts: 9, delivered: true, codes: [200] })

          // A failed retry is answered too (exit 0): the delivery waits for its next attempt.
          receiver.mode = 503
          const failed = yield* cli("federation", "deliveries", "retry", String(retrying.id), "--json")
          assert.strictEqual(failed.code, 0, failed.stderr)
          assert.deepInclude(jsonOf<DeliveryJson>(failed), {
            status: "retrying",
            attempts: 3,
            last_status_code: 503,
            last_error: "answered with HTTP 503",
            delivered_at: null
          })

          const [again, againText, unknown, notAnId] = yield* Effect.all([
            cli("federation", "deliveries", "retry", String(dead.id), "--json"),
            cli("federation", "deliveries", "retry", String(deadToo.id)),
            cli("federation", "deliveries", "retry", "999999999", "--json"),
            cli("federation", "deliveries", "retry", "abc", "--json")
          ], { concurrency: "unbounded" })
          assert.strictEqual(again.code, 5)
          assert.strictEqual(jsonOf<Errors>(again).errors[0]?.code, "INVALID_STATE")
          assert.strictEqual(againText.code, 5)
          assert.match(againText.stderr, /^error: INVALID_STATE: The delivery was delivered already$/m)
          for (const run of [unknown, notAnId]) {
            assert.strictEqual(run.code, 3)
            assert.strictEqual(jsonOf<Errors>(run).errors[0]?.code, "NOT_FOUND")
          }
          assert.strictEqual(receiver.received.length, 3)
          const [still] = yield* query("SELECT attempts FROM federation_deliveries WHERE id = $1", [dead.id])
          assert.strictEqual(still!["attempts"], 9)
        }).pipe(Effect.scoped),
      TIMEOUT
    )
  }
)
