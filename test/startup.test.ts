import { assert, describe, it } from "@effect/vitest"
import { DEMO_ADMIN_EMAIL, DEMO_ADMIN_PASSWORD } from "@timebank/server"
import { Effect } from "effect"
import { freePort } from "./fixtures/ports.js"
import { firstHealthAnswer, login, startApi, stopProcess } from "./fixtures/processes.js"
import { freshDatabase } from "./fixtures/TestDatabase.js"

const SUPER_ADMIN = { email: "root@startup.example.org", password: "bootstrap-password" }

describe("start-up order", () => {
  it.scopedLive(
    "the first health answer comes after the migrations, the demo tenant and the bootstrap super-admin",
    () =>
      Effect.gen(function*() {
        const db = yield* freshDatabase
        const port = yield* freePort
        const api = yield* startApi({
          DATABASE_URL: db.url,
          PORT: String(port),
          HOST: "127.0.0.1",
          LOG_LEVEL: "WARN",
          BOOTSTRAP_SUPER_ADMIN_EMAIL: SUPER_ADMIN.email,
          BOOTSTRAP_SUPER_ADMIN_PASSWORD: SUPER_ADMIN.password
        })
        assert.strictEqual(yield* firstHealthAnswer(api, port), 200)
        // At once, as a script would: both accounts must already be there.
        const [superAdmin, demoAdmin] = yield* Effect.all([
          login(port, "platform", SUPER_ADMIN.email, SUPER_ADMIN.password),
          login(port, "demo", DEMO_ADMIN_EMAIL, DEMO_ADMIN_PASSWORD)
        ], { concurrency: "unbounded" })
        assert.strictEqual(superAdmin.status, 200, JSON.stringify(superAdmin.body))
        assert.isString(superAdmin.token)
        assert.strictEqual(demoAdmin.status, 200, JSON.stringify(demoAdmin.body))
        assert.isString(demoAdmin.token)
        // The banner comes once the port is open, and a stop (SIGTERM) is a clean exit.
        assert.include(api.stdout(), `timebank API   http://localhost:${port}/api/v2/health`)
        assert.strictEqual(yield* stopProcess(api), 0, api.stderr())
      }),
    120_000
  )
})
