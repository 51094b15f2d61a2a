import { assert, layer } from "@effect/vitest"
import { type OutboxEvent, subscriberLayer } from "@timebank/server"
import { Effect, Layer } from "effect"
import { makeTenant } from "../fixtures/tenants.js"
import { TestPlatform } from "../fixtures/TestApp.js"

layer(TestPlatform(), { excludeTestServices: true, timeout: "60 seconds" })(
  "outbox subscribers on the cluster",
  (it) => {
    it.effect("a subscriber layer runs as a cluster singleton and receives domain events written by services", () =>
      Effect.gen(function*() {
        const seen: Array<OutboxEvent> = []
        yield* Layer.build(subscriberLayer({ name: "singleton-probe", handle: (e) => Effect.sync(() => seen.push(e)) }))
        const tenant = yield* makeTenant()
        const created = () => seen.find((e) => e.type === "TenantCreated" && e.tenantId === tenant.id)
        const start = Date.now()
        while (created() === undefined && Date.now() - start < 20_000) yield* Effect.sleep("50 millis")
        assert.deepStrictEqual(created()?.payload, { tenant_id: tenant.id, slug: tenant.slug })
      }).pipe(Effect.scoped))
  }
)
