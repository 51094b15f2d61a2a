import { HttpApi, HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { assert, describe, it } from "@effect/vitest"
import { Api, AuditAction } from "@timebank/domain"
import { createdIdOf, isAuditedWrite, recordedBody, RouteTable, targetOf } from "@timebank/server"
import { Option } from "effect"

/** What the audit trail records for `method path` of the real contract. */
const auditOf = (table: RouteTable, method: string, path: string) => {
  const route = table.match(method, path)
  assert.ok(Option.isSome(route), `${method} ${path} is a route`)
  return targetOf(route.value, table.answersGet(route.value.path))
}

describe("audit trail: what an admin write is called", () => {
  const table = RouteTable.fromApi(Api)

  it("names actions after the route template and method", () => {
    const cases: ReadonlyArray<[string, string, string, string, string | null]> = [
      ["POST", "/api/v2/admin/users/12/approve", "users.approve", "users", "12"],
      ["POST", "/api/v2/admin/users", "users.created", "users", null],
      ["POST", "/api/v2/admin/users/import", "users.import", "users", null],
      ["PUT", "/api/v2/admin/users/7", "users.updated", "users", "7"],
      ["DELETE", "/api/v2/admin/users/7", "users.deleted", "users", "7"],
      ["POST", "/api/v2/admin/categories", "categories.created", "categories", null],
      ["DELETE", "/api/v2/admin/categories/3", "categories.deleted", "categories", "3"],
      ["PUT", "/api/v2/admin/settings", "settings.updated", "settings", null],
      ["PUT", "/api/v2/admin/config/features", "config.features.updated", "config", null],
      ["POST", "/api/v2/admin/federation/partners", "federation.partners.created", "federation", null],
      ["POST", "/api/v2/admin/super/tenants", "super.tenants.created", "super", null],
      ["POST", "/api/v2/admin/events/5/cancel", "events.cancel", "events", "5"]
    ]
    for (const [method, path, action, targetType, targetId] of cases) {
      assert.deepStrictEqual(auditOf(table, method, path), { action, targetType, targetId }, `${method} ${path}`)
    }
  })

  it("every admin write of the contract gets a dotted name; reads and other routes are not audited", () => {
    let writes = 0
    HttpApi.reflect(Api, {
      onGroup: () => {},
      onEndpoint: ({ endpoint }) => {
        const path = endpoint.path.replace(/:[A-Za-z_]+/g, "1")
        if (!isAuditedWrite(endpoint.method, path)) return
        writes++
        assert.match(auditOf(table, endpoint.method, path).action, /^[a-z0-9-]+(\.[a-z0-9-]+)+$/, endpoint.path)
      }
    })
    assert.isAbove(writes, 20)
    assert.isFalse(isAuditedWrite("GET", "/api/v2/admin/users"))
    assert.isFalse(isAuditedWrite("POST", "/api/v2/listings"))
    assert.isFalse(isAuditedWrite("POST", "/api/v2/administrator"))
  })

  it("an AuditAction annotation overrides the derived name", () => {
    const probe = HttpApi.make("probe").add(
      HttpApiGroup.make("probe").add(
        HttpApiEndpoint.post("clear", "/api/v2/admin/cache/clear").annotate(AuditAction, "cache.cleared")
      ).add(HttpApiEndpoint.post("run", "/api/v2/admin/cache/run"))
    )
    const probeTable = RouteTable.fromApi(probe)
    assert.strictEqual(auditOf(probeTable, "POST", "/api/v2/admin/cache/clear").action, "cache.cleared")
    assert.strictEqual(auditOf(probeTable, "POST", "/api/v2/admin/cache/run").action, "cache.run")
  })

  it("redacts secrets at any depth and drops bodies over 4 KB", () => {
    assert.deepStrictEqual(
      recordedBody({
        email: "a@b.org",
        password: "hunter2",
        credentials: { api_key: "x" },
        nested: [{ Signing_Secret: "s", accessToken: "t", name: "n", privateKey: 1 }]
      }),
      {
        email: "a@b.org",
        password: "[redacted]",
        credentials: "[redacted]",
        nested: [{ Signing_Secret: "[redacted]", accessToken: "[redacted]", name: "n", privateKey: "[redacted]" }]
      }
    )
    assert.strictEqual(recordedBody({ text: "x".repeat(5000) }), undefined)
    assert.deepStrictEqual(recordedBody({ password: "x".repeat(5000) }), { password: "[redacted]" })
    assert.strictEqual(recordedBody(null), undefined)
  })

  it("reads a created record's id from the answer, defensively", () => {
    assert.strictEqual(createdIdOf({ data: { id: 42 } }), "42")
    assert.strictEqual(createdIdOf({ data: { id: "ab-1" } }), "ab-1")
    assert.strictEqual(createdIdOf({ data: [{ id: 1 }] }), null)
    assert.strictEqual(createdIdOf({ data: { id: { nested: 1 } } }), null)
    assert.strictEqual(createdIdOf({ data: null }), null)
    assert.strictEqual(createdIdOf("text"), null)
  })
})
