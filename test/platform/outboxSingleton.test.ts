import { assert, layer } from "@effect/vitest"
import type { DomainEvents } from "@timebank/domain"
import { type OutboxMeta, subscriberLayer } from "@timebank/server"
import { Effect, Layer } from "effect"
import { makeTenant } from "../fixtures/tenants.js"
import { TestPlatform } from "../fixtures/TestApp.js"

layer(TestPlatform(), { excludeTestServices: true, timeout: "60 seconds" })(
  "outbox subscribers on the cluster",
  (it) => {
    it.effect("a subscriber layer runs as a cluster singleton and receives domain events written by services", () =>
      Effect.gen(function*() {
        const seen: Array<{ readonly event: DomainEvents.TenantCreated; readonly meta: OutboxMeta }> = []
        yield* Layer.build(subscriberLayer({
          name: "singleton-probe",
          tags: ["TenantCreated"],
          handle: (event, meta) => Effect.sync(() => seen.push({ event, meta }))
        }))
        const tenant = yield* makeTenant()
        const created = () => seen.find((e) => e.meta.tenantId === tenant.id)
        const start = Date.now()
        while (created() === undefined && Date.now() - start < 20_000) yield* Effect.sleep("50 millis")
        assert.strictEqual(created()?.event._tag, "TenantCreated")
        assert.deepStrictEqual(
          { tenant_id: created()?.event.tenant_id, slug: created()?.event.slug },
          { tenant_id: tenant.id, slug: tenant.slug }
        )
      }).pipe(Effect.scoped))
  }
)
