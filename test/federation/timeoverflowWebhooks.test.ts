import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { community } from "../fixtures/community.js"
import { federationOn, makePartner } from "../fixtures/federation.js"
import { TestApp } from "../fixtures/TestApp.js"
import { type TimeOverflowPeer, timeoverflowPeer } from "./peers/timeoverflowPeer.js"
import { afterSubscriber, createListing, deliveriesOf, FAST_DELIVERY, optIn } from "./webhookKit.js"
import { eventually, partnerWithReceiver } from "./webhookReceiver.js"

/**
 * Our outbound webhooks (decisions D13) to TimeOverflow partners (D16): D13's body plus `partner_id` (TimeOverflow's
 * own row id for us), signed as its receiver verifies them — `X-Federation-Timestamp` and the HMAC of
 * `METHOD\nPATH\nTIMESTAMP\nBODY` with the webhook secret, no nonce — at its webhook URL, else its receive route.
 */

/** The peer's verified `listing.created` webhooks (opting in sent `member.profile_updated` before). */
const listingHooks = (peer: TimeOverflowPeer) => peer.webhooks.filter((w) => w.body["event"] === "listing.created")

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

layer(TestApp(FAST_DELIVERY), { excludeTestServices: true, timeout: "120 seconds" })(
  "webhooks to timeoverflow",
  (it) => {
    it.scoped("a listing reaches TimeOverflow partners signed in four parts, with partner_id; natives as before", () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token" })
        yield* federationOn(c.tenant)
        // At its receive route (no webhook URL set), and at a webhook URL with a query, which the signature covers.
        const byDefault = yield* timeoverflowPeer({ partnerId: 11 })
        const byUrl = yield* timeoverflowPeer({ partnerId: 12 })
        const wrongSecret = yield* timeoverflowPeer({ partnerId: 13 })
        const partner = (
          peer: typeof byDefault,
          extra: { readonly webhookUrl?: string; readonly credentials?: Record<string, string> } = {}
        ) =>
          makePartner(c.tenant, {
            protocol: "timeoverflow",
            baseUrl: peer.url,
            credentials: peer.credentials,
            settings: { remote_partner_id: peer.partnerId },
            ...extra
          })
        const a = yield* partner(byDefault)
        const b = yield* partner(byUrl, { webhookUrl: `${byUrl.url}/api/v1/webhooks/receive?via=timebank` })
        const refused = yield* partner(wrongSecret, {
          credentials: { ...wrongSecret.credentials, webhook_secret: "not-the-secret" }
        })
        // Without credentials a TimeOverflow partner gets nothing.
        const bare = yield* makePartner(c.tenant, {
          protocol: "timeoverflow",
          baseUrl: byDefault.url,
          settings: { remote_partner_id: 99 }
        })
        const native = yield* partnerWithReceiver(c.tenant)

        yield* optIn(c.member)
        const listingId = yield* createListing(c.member, "Mia's bicycle repair")
        yield* eventually(
          "the listing at every partner that takes it",
          Effect.sync(() =>
            listingHooks(byDefault).length > 0 && listingHooks(byUrl).length > 0 &&
              native.receiver.of("listing.created").length > 0
              ? true
              : undefined
          )
        )

        for (
          const [peer, path] of [[byDefault, "/api/v1/webhooks/receive"], [
            byUrl,
            "/api/v1/webhooks/receive?via=timebank"
          ]] as const
        ) {
          const listings = listingHooks(peer)
          assert.strictEqual(listings.length, 1)
          const hook = listings[0]!
          assert.strictEqual(hook.verified, "four_part")
          assert.strictEqual(hook.path, path)
          assert.deepStrictEqual(Object.keys(hook.body), ["id", "event", "tenant", "occurred_at", "data", "partner_id"])
          assert.deepInclude(hook.body, {
            event: "listing.created",
            tenant: { id: c.tenant.id, slug: c.tenant.slug },
            partner_id: peer.partnerId
          })
          assert.match(String(hook.body["id"]), UUID)
          assert.strictEqual((hook.body["data"] as { id: number }).id, listingId)
          const request = peer.requests.find((r) => r.raw.includes(String(hook.body["id"])))!
          assert.strictEqual(request.method, "POST")
          assert.strictEqual(request.headers["content-type"], "application/json")
          assert.strictEqual(request.headers["x-federation-webhook-id"], hook.body["id"])
          assert.isAtMost(Math.abs(Number(request.headers["x-federation-timestamp"]) - Date.now() / 1000), 60)
          // No nonce, no key, no platform id: TimeOverflow's receiver reads none of them.
          for (
            const absent of ["x-federation-nonce", "authorization", "x-federation-api-key", "x-federation-platform-id"]
          ) {
            assert.isUndefined(request.headers[absent], absent)
          }
        }
        const toDefault = listingHooks(byDefault)[0]!.body["id"]
        assert.notStrictEqual(toDefault, listingHooks(byUrl)[0]!.body["id"], "each partner's webhook has its own id")

        // The native partner still gets D13's own body and five-part signature.
        const nativeHook = native.receiver.of("listing.created")[0]!
        assert.isTrue(nativeHook.signed)
        assert.deepStrictEqual(Object.keys(nativeHook.body), ["id", "event", "tenant", "occurred_at", "data"])

        // Recorded: delivered to the two, retrying at the one that refuses the signature (401), none for the bare one.
        const rows = yield* eventually(
          "the deliveries recorded",
          Effect.map(deliveriesOf(a.id, b.id, refused.id, bare.id), (all) => {
            const listings = all.filter((r) => r.event === "listing.created")
            const settled = listings.every((r) => r.status === "delivered" || r.last_status_code === 401)
            return listings.length === 3 && settled ? listings : undefined
          })
        )
        yield* afterSubscriber
        assert.deepStrictEqual(
          rows.map((r) => [r.partner_id, r.status === "delivered" ? "delivered" : r.last_status_code]),
          [
            [a.id, "delivered"],
            [b.id, "delivered"],
            [refused.id, 401]
          ]
        )
        assert.deepStrictEqual(wrongSecret.webhooks, [])
        assert.include(wrongSecret.refusals, "Invalid signature")
        assert.deepStrictEqual(yield* deliveriesOf(bare.id), [])
      }))
  }
)
