import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import pg from "pg"
import { apiProcess, deployment } from "../fixtures/deployment.js"
import { report } from "../fixtures/load.js"
import { privatePostgres } from "../fixtures/privateServices.js"
import { stopProcess } from "../fixtures/processes.js"

/** How long SIGTERM may take to end the API process (a supervisor's grace period is usually 10–30 s). */
const STOP_LIMIT_MS = 20_000

/** The SQLSTATE a new connection gets, or "connected". */
const connectOutcome = (url: string) =>
  Effect.promise(async () => {
    const client = new pg.Client({ connectionString: url })
    try {
      await client.connect()
      return "connected"
    } catch (error) {
      return String((error as { code?: unknown }).code)
    } finally {
      await client.end().catch(() => undefined)
    }
  })

describe("stopping the API while PostgreSQL is shutting down (smart shutdown of a private server)", () => {
  it.scopedLive(
    "SIGTERM ends the API process in bounded time though no new connection can be opened",
    () =>
      Effect.gen(function*() {
        const postgres = yield* privatePostgres
        const d = deployment(postgres.url, undefined, { JOBS_SCHEDULER: "off" })
        const api = yield* apiProcess(d, { socket: true })
        yield* postgres.smartShutdown
        yield* Effect.sleep("1 second")
        // 57P03 cannot_connect_now: "the database system is shutting down"; the API's open sessions go on.
        assert.strictEqual(yield* connectOutcome(postgres.url), "57P03")
        const started = Date.now()
        const code = yield* stopProcess(api.process)
        const took = Date.now() - started
        yield* report(`API stopped in ${took} ms (exit code ${code}) while PostgreSQL was shutting down`)
        assert.strictEqual(code, 0)
        assert.isBelow(took, STOP_LIMIT_MS)
      }),
    120_000
  )
})
