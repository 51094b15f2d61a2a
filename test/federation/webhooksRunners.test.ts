import { assert, describe, it } from "@effect/vitest"
import { DomainEvents } from "@timebank/domain"
import { Outbox } from "@timebank/server"
import { Effect } from "effect"
import { community } from "../fixtures/community.js"
import { federationOn, makePartner } from "../fixtures/federation.js"
import { twoServers } from "../fixtures/servers.js"
import { deliveriesOf, FAST_DELIVERY } from "./webhookKit.js"
import { eventually, partnerCredentials, webhookReceiver } from "./webhookReceiver.js"

const EVENTS = 60

describe("outbound webhooks on two runners", () => {
  it.scopedLive("every webhook arrives exactly once, whichever runner wrote its event", () =>
    Effect.gen(function*() {
      const { onA, onB } = yield* twoServers(FAST_DELIVERY)
      const c = yield* onA(community({ signIn: "token" }))
      yield* onA(federationOn(c.tenant))
      const partners = yield* Effect.forEach([1, 2], () =>
        Effect.gen(function*() {
          const credentials = partnerCredentials()
          const receiver = yield* webhookReceiver(credentials.signing_secret)
          const partner = yield* onA(makePartner(c.tenant, { webhookUrl: receiver.url, credentials }))
          return { ...partner, receiver }
        }))
      // Events written through both processes, half each.
      const append = (i: number) =>
        Effect.flatMap(Outbox, (outbox) =>
          outbox.appendFor(
            c.tenant.id,
            new DomainEvents.MemberFederationOptedOut({ user_id: 1_000 + i, changed_by: 1 })
          )).pipe(Effect.provide(Outbox.Default))
      yield* Effect.forEach(
        Array.from({ length: EVENTS }, (_, i) => i),
        (i) => (i % 2 === 0 ? onA(append(i)) : onB(append(i))),
        { concurrency: 8 }
      )
      for (const p of partners) {
        const rows = yield* eventually(
          "every delivery delivered",
          onA(Effect.map(deliveriesOf(p.id), (rs) =>
            rs.length === EVENTS && rs.every((r) => r.status === "delivered")
              ? rs
              : undefined)),
          60
        )
        yield* Effect.sleep("500 millis")
        const ids = p.receiver.received.map((r) => r.body.id)
        assert.strictEqual(ids.length, EVENTS, "no webhook sent twice")
        assert.strictEqual(new Set(ids).size, EVENTS)
        assert.sameMembers(ids, rows.map((r) => r.webhook_id))
        assert.isTrue(rows.every((r) => r.attempts === 1))
        assert.sameMembers(
          p.receiver.received.map((r) => r.body.data["member_id"]),
          Array.from({ length: EVENTS }, (_, i) => 1_000 + i)
        )
      }
    }), { timeout: 120_000 })
})
