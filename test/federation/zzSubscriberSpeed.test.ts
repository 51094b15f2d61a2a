import { SqlClient } from "@effect/sql"
import { layer } from "@effect/vitest"
import { Effect } from "effect"
import { community } from "../fixtures/community.js"
import { federationOn } from "../fixtures/federation.js"
import { TestApp } from "../fixtures/TestApp.js"
import { partnerWithReceiver } from "./webhookReceiver.js"

layer(TestApp({ OUTBOX_POLL_INTERVAL: "250 millis", FEDERATION_WEBHOOK_POLL_INTERVAL: process.env.ZZ_POLL ?? "1 second" }), { excludeTestServices: true, timeout: "300 seconds" })("speed", (it) => {
  it.scoped("subscriber speed", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      yield* federationOn(c.tenant)
      const p = yield* partnerWithReceiver(c.tenant)
      const sql = yield* SqlClient.SqlClient
      const n = 2000
      const t0 = Date.now()
      yield* sql`INSERT INTO outbox_events (tenant_id, event_type, payload)
        SELECT ${c.tenant.id}, 'MemberFederationOptedOut', jsonb_build_object('user_id', g, 'changed_by', 1)
        FROM generate_series(1, ${n}::int) g`
      while (true) {
        const [row] = yield* sql<{ done: boolean }>`SELECT c.event_id >= (SELECT max(id) FROM outbox_events) AS done FROM outbox_cursors c WHERE subscriber = 'federation-webhooks'`
        if (row?.done) break
        yield* Effect.sleep("50 millis")
      }
      const [other] = yield* sql`SELECT subscriber, event_id FROM outbox_cursors`
      console.log("CURSORS", JSON.stringify(yield* sql`SELECT subscriber, event_id FROM outbox_cursors`), other)
      const t1 = Date.now()
      while (p.receiver.received.length < 0) yield* Effect.sleep("50 millis")
      for (let i = 0; i < 3; i++) {
      const plan = yield* sql.unsafe(`EXPLAIN (ANALYZE, BUFFERS) INSERT INTO federation_deliveries (tenant_id, partner_id, webhook_id, event, body, source_key)
        SELECT e.tenant_id, e.id, e.webhook_id, 'member.opted_out'::text,
               jsonb_build_object('id', e.webhook_id, 'event', 'member.opted_out'::text, 'tenant', '{"id":1}'::jsonb, 'occurred_at', 'x'::text, 'data', '{}'::jsonb),
               'zz${i}'::text
        FROM (
          SELECT p.id, p.tenant_id, gen_random_uuid() AS webhook_id
          FROM federation_partners p
          JOIN federation_platform fp ON fp.enabled
          JOIN federation_tenant_settings s ON s.tenant_id = p.tenant_id AND s.whitelisted
          WHERE p.tenant_id = ${c.tenant.id} AND p.deleted_at IS NULL AND p.status IN ('active', 'failed') AND p.webhook_url IS NOT NULL
            AND p.credential_keys @> ARRAY['api_key', 'signing_secret']::text[]
            AND TRUE AND TRUE
            AND set_config('synchronous_commit', 'off', true) IS NOT NULL
        ) e
        ON CONFLICT (partner_id, source_key) DO NOTHING`)
      console.log("PLAN", plan.map((r: any) => r["QUERY PLAN"]).join("\n"))
      }
      console.log("ROWS", n, "written ms", t1 - t0, "delivered ms", Date.now() - t0)
    }).pipe(Effect.orDie))
})
