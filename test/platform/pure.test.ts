import { assert, describe, it } from "@effect/vitest"
import { cursorPage, decodeCursor, encodeCursor } from "@timebank/domain"
import { pathOf, retryPolicy, RouteTable, tenantRefOf } from "@timebank/server"
import { Chunk, Duration, Effect, Either, Option, Schedule, Schema } from "effect"

describe("tenantRefOf", () => {
  const base = Option.some("timebank.test")
  it("prefers X-Tenant-ID, then X-Tenant-Slug, then the host", () => {
    assert.deepStrictEqual(
      tenantRefOf({ "x-tenant-id": " 7 ", "x-tenant-slug": "a", host: "b.timebank.test" }, base),
      Option.some({ _tag: "Id", id: "7" })
    )
    assert.deepStrictEqual(
      tenantRefOf({ "x-tenant-slug": "Riverside", host: "b.timebank.test" }, base),
      Option.some({ _tag: "Slug", slug: "riverside" })
    )
    assert.deepStrictEqual(
      tenantRefOf({ host: "b.timebank.test:8080" }, base),
      Option.some({ _tag: "Host", host: "b.timebank.test", subdomainSlug: Option.some("b") })
    )
  })
  it("a custom domain is a host reference without a subdomain slug", () => {
    assert.deepStrictEqual(
      tenantRefOf({ host: "bank.example.org" }, base),
      Option.some({ _tag: "Host", host: "bank.example.org", subdomainSlug: Option.none() })
    )
    assert.deepStrictEqual(
      tenantRefOf({ host: "a.b.timebank.test" }, base),
      Option.some({ _tag: "Host", host: "a.b.timebank.test", subdomainSlug: Option.none() })
    )
  })
  it("IP literals, localhost, single labels and the base domain itself name no tenant", () => {
    for (
      const host of [
        "127.0.0.1",
        "127.0.0.1:3000",
        "localhost:3000",
        "[::1]:3000",
        "api",
        "timebank.test",
        "x.localhost"
      ]
    ) {
      assert.deepStrictEqual(tenantRefOf({ host }, base), Option.none(), host)
    }
    assert.deepStrictEqual(tenantRefOf({}, Option.none()), Option.none())
    assert.deepStrictEqual(tenantRefOf({ "x-tenant-id": "  " }, Option.none()), Option.none())
  })
})

describe("RouteTable", () => {
  const table = new RouteTable([
    { method: "GET", path: "/api/v2/events/:id" },
    { method: "PUT", path: "/api/v2/events/:id" },
    { method: "POST", path: "/api/v2/events" }
  ])
  it("lists the methods a path accepts", () => {
    assert.deepStrictEqual(table.allowedMethods("/api/v2/events/12"), ["GET", "PUT"])
    assert.deepStrictEqual(table.allowedMethods("/api/v2/events"), ["POST"])
    assert.deepStrictEqual(table.allowedMethods("/api/v2/events/12/rsvp"), [])
    assert.deepStrictEqual(table.allowedMethods("/api/v2/eventsX"), [])
  })
  it("answers paths without parameters from its map as the patterns would, a trailing slash included", () => {
    const mixed = new RouteTable([
      { method: "GET", path: "/api/v2/users/import" },
      { method: "PUT", path: "/api/v2/users/:id" },
      { method: "GET", path: "/uploads/*" }
    ])
    assert.deepStrictEqual(mixed.allowedMethods("/api/v2/users/import"), ["GET", "PUT"])
    assert.deepStrictEqual(mixed.allowedMethods("/api/v2/users/import/"), ["GET", "PUT"])
    assert.deepStrictEqual(mixed.allowedMethods("/api/v2/users/import//"), [])
    assert.deepStrictEqual(mixed.allowedMethods("/uploads/a/b.png"), ["GET"])
    assert.isTrue(mixed.allows("GET", "/api/v2/users/import/"))
    assert.isTrue(mixed.allows("PUT", "/api/v2/users/import"))
    assert.isFalse(mixed.allows("POST", "/api/v2/users/import"))
    assert.isFalse(table.allows("GET", "/api/v2/events"))
    assert.isTrue(table.allows("POST", "/api/v2/events"))
  })
  it("reads a request target's path without its query", () => {
    assert.strictEqual(pathOf("/api/v2/events?per_page=5&q=a?b"), "/api/v2/events")
    assert.strictEqual(pathOf("/api/v2/health"), "/api/v2/health")
    assert.strictEqual(pathOf("?q=1"), "")
  })
})

describe("cursors and pages", () => {
  it("round-trips values and refuses what is not a cursor", () => {
    assert.deepStrictEqual(
      decodeCursor(Schema.Tuple(Schema.String, Schema.Int), encodeCursor(["2026-01-01", 5])),
      Either.right(["2026-01-01", 5] as const)
    )
    assert.ok(Either.isLeft(decodeCursor(Schema.Int, "not base64!")))
    assert.ok(Either.isLeft(decodeCursor(Schema.Int, encodeCursor("5"))))
  })
  it("cursorPage: the extra row means more; no cursor on the last page", () => {
    assert.deepStrictEqual(cursorPage([1, 2, 3], 2, String), {
      data: [1, 2],
      meta: { per_page: 2, has_more: true, cursor: "2" }
    })
    assert.deepStrictEqual(cursorPage([1, 2], 2, String), { data: [1, 2], meta: { per_page: 2, has_more: false } })
    assert.deepStrictEqual(cursorPage([], 2, String), { data: [], meta: { per_page: 2, has_more: false } })
  })
})

describe("retryPolicy", () => {
  it.effect("doubles from the base, caps the delay, and stops after maxAttempts in all", () =>
    Effect.gen(function*() {
      const delays = yield* Schedule.run(
        Schedule.delays(retryPolicy({ maxAttempts: 6, retryBase: "100 millis", retryCap: "1 second" })),
        0,
        Array.from({ length: 10 }, (_, i) => i)
      )
      // Schedule.run also reports the step on which the schedule ends; the retries are the steps before it.
      assert.deepStrictEqual(Chunk.toReadonlyArray(delays).slice(0, -1).map(Duration.toMillis), [
        100,
        200,
        400,
        800,
        1000
      ])
    }))
})
