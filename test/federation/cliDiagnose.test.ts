import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { AppConfig } from "@timebank/server"
import { ConfigProvider, Context, Effect, Layer } from "effect"
import { randomBytes } from "node:crypto"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { makePartner } from "../fixtures/federation.js"
import { runCli } from "../fixtures/processes.js"
import { freshDatabase, pgClientLayer } from "../fixtures/TestDatabase.js"
import { timeoverflowPeer } from "./peers/timeoverflowPeer.js"

/**
 * `federation partners diagnose ID --tenant …` (decisions D16): the same checks as the admin route, printed as a
 * table (or the route's `data` with `--json`), exit 4 when one fails.
 */

interface CliRun {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

interface DiagnosisJson {
  readonly ok: boolean
  readonly checks: ReadonlyArray<{ readonly name: string; readonly ok: boolean; readonly detail: string }>
}

type Errors = { readonly errors: ReadonlyArray<{ code: string; message: string; field?: string }> }

/** A database, and the secrets key and data directory the commands share (never the checkout's `.data`). */
class CliEnv extends Context.Tag("FederationDiagnoseCliEnv")<CliEnv, Record<string, string>>() {
  static readonly Live = Layer.scoped(
    CliEnv,
    Effect.map(freshDatabase, (db) => ({
      DATABASE_URL: db.url,
      SECRETS_KEY: randomBytes(32).toString("hex"),
      DATA_DIR: join(tmpdir(), "timebank-test", `cli-${randomBytes(4).toString("hex")}`)
    }))
  )
}

const cli = (...args: Array<string>) => Effect.flatMap(CliEnv, (env) => runCli(env, ...args))

const jsonOf = <A>(run: CliRun): A => JSON.parse(run.stdout) as A

/** Runs a federation kit fixture on the commands' database, sealing secrets under their SECRETS_KEY. */
const onCliDatabase = <A, E>(effect: Effect.Effect<A, E, SqlClient.SqlClient | AppConfig>) =>
  Effect.flatMap(CliEnv, (env) =>
    effect.pipe(
      Effect.provide(AppConfig.Default),
      Effect.provide(pgClientLayer(env["DATABASE_URL"]!)),
      Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))
    ))

const newTenant = Effect.gen(function*() {
  const slug = `fed-${randomBytes(4).toString("hex")}`
  const run = yield* cli("tenant", "create", "--slug", slug, "--name", "Federating", "--json")
  assert.strictEqual(run.code, 0, run.stderr)
  return { id: jsonOf<{ id: number }>(run).id, slug }
})

// Each command is a Node process of its own (several seconds on a busy machine).
const TIMEOUT = 300_000

layer(CliEnv.Live, { excludeTestServices: true, timeout: "90 seconds" })("cli federation partners diagnose", (it) => {
  it.scoped(
    "prints each check with the partner's answer; exit 0 when all hold, 4 when one fails; other tenants' 404",
    () =>
      Effect.gen(function*() {
        const [tenant, other] = yield* Effect.all([newTenant, newTenant], { concurrency: "unbounded" })
        const peer = yield* timeoverflowPeer()
        const partner = (credentials: Record<string, string>) =>
          onCliDatabase(makePartner(tenant, {
            protocol: "timeoverflow",
            status: "pending",
            baseUrl: peer.url,
            credentials,
            settings: { remote_partner_id: peer.partnerId }
          }))
        const good = yield* partner(peer.credentials)
        const badKey = yield* partner({ ...peer.credentials, api_key: "to_fed_wrong" })

        const [asJson, asText, failing, foreign, odd] = yield* Effect.all([
          cli("federation", "partners", "diagnose", String(good.id), "--tenant", tenant.slug, "--json"),
          cli("federation", "partners", "diagnose", String(good.id), "--tenant", String(tenant.id)),
          cli("federation", "partners", "diagnose", String(badKey.id), "--tenant", tenant.slug),
          cli("federation", "partners", "diagnose", String(good.id), "--tenant", other.slug, "--json"),
          cli("federation", "partners", "diagnose", "abc", "--tenant", tenant.slug, "--json")
        ], { concurrency: "unbounded" })

        assert.strictEqual(asJson.code, 0, asJson.stderr)
        const diagnosis = jsonOf<DiagnosisJson>(asJson)
        assert.isTrue(diagnosis.ok)
        assert.deepStrictEqual(diagnosis.checks.map((c) => [c.name, c.ok]), [
          ["reachability", true],
          ["auth", true],
          ["webhook", true],
          ["clock_skew", true]
        ])
        assert.match(diagnosis.checks[0]!.detail, /^HTTP 200: \{"success":true/)

        assert.strictEqual(asText.code, 0, asText.stderr)
        const lines = asText.stdout.trim().split("\n")
        assert.match(lines[0]!, /^CHECK\s+RESULT\s+DETAIL$/)
        assert.match(lines[1]!, /^reachability\s+ok\s+HTTP 200: /)
        assert.match(lines[2]!, /^auth\s+ok\s+HTTP 200: /)
        assert.match(lines[3]!, new RegExp(`^webhook\\s+ok\\s+POST ${peer.url}/api/v1/webhooks/receive: HTTP 200`))
        assert.match(lines[4]!, /^clock_skew\s+ok\s+Date: /)
        assert.strictEqual(lines[5], `partner ${good.id} in tenant ${tenant.id} "${tenant.slug}": every check passed`)

        assert.strictEqual(failing.code, 4, failing.stderr)
        assert.match(
          failing.stdout,
          /auth\s+FAILED\s+HTTP 401: \{"error":"Unauthorized","message":"Invalid or expired API key"\}/
        )
        assert.include(failing.stdout, "1 of 4 checks failed")
        for (const run of [asJson, asText, failing]) {
          assert.notInclude(run.stdout + run.stderr, peer.credentials.api_key)
        }

        for (const refused of [foreign, odd]) {
          assert.strictEqual(refused.code, 3)
          assert.strictEqual(jsonOf<Errors>(refused).errors[0]?.code, "NOT_FOUND")
        }
        // Nothing changed: diagnose never activates.
        const status = yield* onCliDatabase(
          Effect.flatMap(SqlClient.SqlClient, (sql) =>
            sql<{ status: string }>`SELECT status FROM federation_partners WHERE id = ${good.id}`)
        )
        assert.strictEqual(status[0]!.status, "pending")
      }),
    TIMEOUT
  )
})
