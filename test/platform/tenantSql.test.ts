import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { CurrentTenant, type Tenant } from "@timebank/domain"
import { TenantSql } from "@timebank/server"
import { Effect } from "effect"
import { makeTenant } from "../fixtures/tenants.js"
import { TestPlatform } from "../fixtures/TestApp.js"

const currentSetting = (sql: SqlClient.SqlClient) =>
  sql<{ value: string | null }>`SELECT current_setting('app.tenant_id', true) AS value`.pipe(
    Effect.map((rows) => rows[0]!.value ?? "")
  )

const asTenant = (tenant: Tenant) => Effect.provideService(CurrentTenant, tenant)

describe("TenantSql", () => {
  layer(TestPlatform(), { excludeTestServices: true, timeout: "60 seconds" })(
    "row-level security off (default)",
    (it) => {
      it.effect("hands repos the current tenant's id and adds no transaction to reads", () =>
        Effect.gen(function*() {
          const db = yield* TenantSql
          const tenant = yield* makeTenant()
          const seen = yield* db.query((tenantId) =>
            Effect.map(currentSetting(db.sql), (setting) => ({ tenantId, setting }))
          ).pipe(asTenant(tenant))
          assert.deepStrictEqual(seen, { tenantId: tenant.id, setting: "" })
        }))
    }
  )

  layer(TestPlatform({ DB_TENANT_RLS: "true" }), { excludeTestServices: true, timeout: "60 seconds" })(
    "row-level security on",
    (it) => {
      it.effect("every scoped statement carries app.tenant_id inside its transaction, and nothing leaks after", () =>
        Effect.gen(function*() {
          const db = yield* TenantSql
          const [a, b] = [yield* makeTenant(), yield* makeTenant()]
          const inQuery = yield* Effect.all([
            db.query(() => currentSetting(db.sql)).pipe(asTenant(a)),
            db.query(() => currentSetting(db.sql)).pipe(asTenant(b)),
            db.transaction(currentSetting(db.sql)).pipe(asTenant(a))
          ], { concurrency: "unbounded" })
          assert.deepStrictEqual(inQuery, [String(a.id), String(b.id), String(a.id)])
          // Pooled connections come back without the tenant: the setting was transaction-local.
          const after = yield* Effect.all(Array.from({ length: 8 }, () => currentSetting(db.sql)), { concurrency: 8 })
          assert.deepStrictEqual([...new Set(after)], [""])
        }))
    }
  )
})
