import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { type DomainEvent, DomainEvents, UserId } from "@timebank/domain"
import { outboxRow } from "@timebank/server"
import { Effect } from "effect"
import { expectOk } from "../fixtures/client.js"
import { community } from "../fixtures/community.js"
import { federationOn, makePartner, setPlatformFederation, setToggles, setWhitelisted } from "../fixtures/federation.js"
import { TestApp } from "../fixtures/TestApp.js"
import { afterSubscriber, createListing, deliveriesOf, FAST_DELIVERY, optIn, setPartnerStatus } from "./webhookKit.js"
import { eventually, partnerCredentials, partnerWithReceiver } from "./webhookReceiver.js"

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

layer(TestApp(FAST_DELIVERY), { excludeTestServices: true, timeout: "120 seconds" })("outbound webhooks", (it) => {
  it.scoped("a listing of an opted-in member reaches every eligible partner once, signed and shaped per D13", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      yield* federationOn(c.tenant)
      const a = yield* partnerWithReceiver(c.tenant)
      const b = yield* partnerWithReceiver(c.tenant)
      // Partners that get nothing: suspended, pending, without a webhook URL, without signing credentials,
      // deleted, and a partner of another community.
      const suspended = yield* partnerWithReceiver(c.tenant, 200, { status: "suspended" })
      const pending = yield* partnerWithReceiver(c.tenant, 200, { status: "pending" })
      const noUrl = yield* makePartner(c.tenant, { credentials: partnerCredentials() })
      const noSecret = yield* partnerWithReceiver(c.tenant)
      yield* onlyApiKey(noSecret.id)
      const deleted = yield* partnerWithReceiver(c.tenant)
      yield* softDelete(deleted.id)
      const elsewhere = yield* community({ signIn: "token" })
      yield* federationOn(elsewhere.tenant)
      const foreign = yield* partnerWithReceiver(elsewhere.tenant)

      // Otto never opted in: his listing stays here; Mia opts in, then lists.
      const hidden = yield* createListing(c.other, "Otto's ladder")
      yield* optIn(c.member)
      const listingId = yield* createListing(c.member, "Mia's bicycle repair")

      yield* eventually(
        "the listing at both partners",
        Effect.sync(() => [a, b].every((p) => p.receiver.of("listing.created").length > 0) ? true : undefined)
      )
      yield* afterSubscriber
      yield* Effect.sleep("300 millis")
      for (const p of [a, b]) {
        const listings = p.receiver.of("listing.created")
        assert.strictEqual(listings.length, 1, "exactly one listing.created per partner")
        const r = listings[0]!
        assert.isTrue(r.signed, "the HMAC holds with the partner's secret")
        assert.strictEqual(r.headers["content-type"], "application/json")
        assert.strictEqual(r.headers["authorization"], `Bearer ${p.credentials.api_key}`)
        assert.strictEqual(r.headers["x-federation-platform-id"], p.credentials.api_key.slice(0, 12))
        assert.match(String(r.headers["x-federation-nonce"]), UUID)
        assert.isAtMost(Math.abs(Number(r.headers["x-federation-timestamp"]) - Date.now() / 1000), 60)
        assert.strictEqual(r.headers["x-federation-webhook-id"], r.body.id)
        assert.match(r.body.id, UUID)
        assert.strictEqual(r.path, "/hooks/timebank?via=test")
        assert.deepStrictEqual(Object.keys(r.body), ["id", "event", "tenant", "occurred_at", "data"])
        assert.deepStrictEqual(r.body.tenant, { id: c.tenant.id, slug: c.tenant.slug })
        assert.isFalse(Number.isNaN(Date.parse(r.body.occurred_at)))
        assert.deepStrictEqual(r.body.data, {
          id: listingId,
          user_id: c.member.id,
          type: "offer",
          title: "Mia's bicycle repair",
          status: "active",
          category_id: null
        })
        assert.notInclude(r.raw, c.member.email, "no e-mail crosses")
        assert.isUndefined(p.receiver.received.find((x) => x.body.data["id"] === hidden))
      }
      const [idA, idB] = [a, b].map((p) => p.receiver.of("listing.created")[0]!.body.id)
      assert.notStrictEqual(idA, idB, "each partner's webhook has its own id")

      // One delivery row per eligible partner for the listing, delivered; none for the others.
      const listingRows = yield* eventually(
        "both recorded as delivered",
        Effect.map(deliveriesOf(a.id, b.id), (rows) => {
          const listings = rows.filter((r) => r.event === "listing.created")
          return listings.every((r) => r.status === "delivered") ? listings : undefined
        })
      )
      assert.deepStrictEqual(listingRows.map((r) => [r.partner_id, r.status, r.attempts, r.last_status_code]), [
        [a.id, "delivered", 1, 200],
        [b.id, "delivered", 1, 200]
      ])
      assert.deepStrictEqual(
        listingRows.map((r) => r.webhook_id),
        [a, b].map((p) => p.receiver.of("listing.created")[0]!.body.id)
      )
      const others = yield* deliveriesOf(suspended.id, pending.id, noUrl.id, noSecret.id, deleted.id, foreign.id)
      assert.deepStrictEqual(others, [])
      for (const p of [suspended, pending, noSecret, deleted, foreign]) assert.deepStrictEqual(p.receiver.received, [])
      // The opt-in itself went out as the member's profile.
      const profile = a.receiver.of("member.profile_updated")
      assert.strictEqual(profile.length, 1)
      assert.deepStrictEqual(profile[0]!.body.data, {
        member_id: c.member.id,
        first_name: "Mia",
        last_name: "Member",
        avatar_url: null,
        bio: null,
        location: null,
        fields: ["federation_opt_in"]
      })
    }))

  it.scoped("one publisher batch of several communities' events: each webhook checked on its own", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      const d = yield* community({ signIn: "token" })
      yield* federationOn(c.tenant)
      yield* federationOn(d.tenant, ["listings"])
      const pc = yield* partnerWithReceiver(c.tenant)
      const pd = yield* partnerWithReceiver(d.tenant)
      yield* optIn(c.member)
      yield* optIn(d.member)
      yield* afterSubscriber
      const listing = (owner: { readonly id: number }, id: number) =>
        new DomainEvents.ListingCreated({
          listing_id: id,
          user_id: owner.id,
          type: "offer",
          title: `Listing ${id}`,
          status: "active",
          category_id: null
        })
      const message = (from: { readonly id: number }, to: { readonly id: number }, id: number) =>
        new DomainEvents.MessageSent({
          message_id: id,
          thread_id: 1,
          sender_id: from.id,
          recipient_id: to.id,
          subject: null,
          body: "Hello"
        })
      // All in one transaction, so the subscriber gets them in one batch.
      yield* appendInOneTransaction([
        [c.tenant.id, listing(c.member, 1)], // crosses
        [c.tenant.id, listing(c.other, 2)], // Otto never opted in
        [d.tenant.id, listing(d.member, 3)], // crosses, to d's partner only
        [c.tenant.id, message(c.member, c.other, 4)], // one side not opted in
        [d.tenant.id, message(d.member, d.member, 5)], // messaging is off in d
        [c.tenant.id, listing(c.member, 6)] // crosses
      ])
      yield* afterSubscriber
      const sent = (p: { readonly id: number }) =>
        Effect.map(deliveriesOf(p.id), (rows) => rows.filter((r) => r.event !== "member.profile_updated"))
      assert.deepStrictEqual((yield* sent(pc)).map((r) => [r.event, r.data_id]), [
        ["listing.created", "1"],
        ["listing.created", "6"]
      ])
      assert.deepStrictEqual((yield* sent(pd)).map((r) => [r.event, r.data_id]), [["listing.created", "3"]])
      const got = yield* eventually(
        "c's two listings",
        Effect.sync(() => {
          const r = pc.receiver.of("listing.created")
          return r.length === 2 ? r : undefined
        })
      )
      assert.deepStrictEqual(got.map((r) => r.body.tenant), [
        { id: c.tenant.id, slug: c.tenant.slug },
        { id: c.tenant.id, slug: c.tenant.slug }
      ])
    }))

  it.scoped("nothing is written while the event's toggle, the whitelist or the platform switch is off", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      yield* federationOn(c.tenant)
      const p = yield* partnerWithReceiver(c.tenant)
      yield* optIn(c.member)
      const listingsFor = Effect.map(deliveriesOf(p.id), (rows) => rows.filter((r) => r.event === "listing.created"))

      yield* setToggles(c.tenant, { listings: false })
      yield* createListing(c.member, "Toggle off")
      yield* afterSubscriber
      yield* setToggles(c.tenant, { listings: true })
      yield* setWhitelisted(c.tenant, false)
      yield* createListing(c.member, "Not whitelisted")
      yield* afterSubscriber
      yield* setWhitelisted(c.tenant, true)
      yield* setPlatformFederation(false)
      yield* createListing(c.member, "Platform off")
      yield* afterSubscriber
      yield* setPlatformFederation(true)
      assert.deepStrictEqual(yield* listingsFor, [])

      // The other toggles do not matter to a listing; its own does.
      yield* setToggles(c.tenant, { profiles: false, messaging: false })
      const shown = yield* createListing(c.member, "All on")
      const rows = yield* eventually(
        "the listing's delivery",
        Effect.map(listingsFor, (r) => r.length > 0 ? r : undefined)
      )
      assert.deepStrictEqual(rows.map((r) => r.data_id), [String(shown)])
      yield* eventually("sent", Effect.sync(() => p.receiver.of("listing.created").length === 1 ? true : undefined))
    }))

  it.scoped("a delivery queued before its partner was suspended waits; reactivated, the partner gets it", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      yield* federationOn(c.tenant)
      const p = yield* partnerWithReceiver(c.tenant, 200, { status: "suspended" })
      yield* queueRow(c.tenant, p.id)
      yield* Effect.sleep("500 millis")
      assert.deepStrictEqual(p.receiver.received, [], "nothing goes to a suspended partner")
      assert.deepStrictEqual((yield* deliveriesOf(p.id)).map((r) => r.status), ["pending"])
      // Nor while federation is off for the community (switched off before the partner is reactivated, so no
      // worker poll can fall between the two).
      yield* setWhitelisted(c.tenant, false)
      yield* setPartnerStatus(p.id, "active")
      yield* Effect.sleep("500 millis")
      assert.deepStrictEqual(p.receiver.received, [])
      yield* setWhitelisted(c.tenant, true)
      yield* eventually("the queued one sent", Effect.sync(() => p.receiver.received.length === 1 ? true : undefined))
      assert.deepStrictEqual(p.receiver.received[0]!.body.data, { member_id: 1 })
      yield* eventually(
        "recorded as delivered",
        Effect.map(
          deliveriesOf(p.id),
          (rows) => rows.length === 1 && rows[0]!.status === "delivered" ? true : undefined
        )
      )
    }))

  it.scoped("an opt-out sends member.opted_out; the member's data stops crossing", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      yield* federationOn(c.tenant)
      const p = yield* partnerWithReceiver(c.tenant)
      yield* optIn(c.member)
      yield* c.member.client.users.updateMe({ payload: { bio: "Gardener", location: "Leeds" } }).pipe(expectOk)
      const updates = yield* eventually(
        "two profile updates",
        Effect.sync(() => {
          const got = p.receiver.of("member.profile_updated")
          return got.length === 2 ? got : undefined
        })
      )
      assert.deepStrictEqual(updates[1]!.body.data["fields"], ["bio", "location"])
      assert.strictEqual(updates[1]!.body.data["bio"], "Gardener")
      // A change of nothing partners see (the language) sends nothing.
      yield* c.member.client.users.updateMe({ payload: { preferred_language: "de" } }).pipe(expectOk)

      yield* optIn(c.member, false)
      const [retraction] = yield* eventually(
        "the retraction",
        Effect.sync(() => {
          const got = p.receiver.of("member.opted_out")
          return got.length === 1 ? got : undefined
        })
      )
      assert.deepStrictEqual(retraction!.body.data, { member_id: c.member.id })
      assert.isTrue(retraction!.signed)

      // Opted out: a new listing or profile edit of hers stays here.
      yield* createListing(c.member, "After the opt-out")
      yield* c.member.client.users.updateMe({ payload: { bio: "Private now" } }).pipe(expectOk)
      yield* afterSubscriber
      const rows = yield* deliveriesOf(p.id)
      assert.deepStrictEqual(rows.map((r) => r.event), [
        "member.profile_updated",
        "member.profile_updated",
        "member.opted_out"
      ])
    }))

  it.scoped("an admin who turns a member's opt-in off, or erases an opted-in member, retracts them too", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      yield* federationOn(c.tenant)
      const p = yield* partnerWithReceiver(c.tenant)
      yield* optIn(c.member)
      yield* optIn(c.other)
      yield* c.admin.client.adminUsers.update({
        path: { id: UserId.make(c.member.id) },
        payload: { federation_opt_in: false }
      })
        .pipe(expectOk)
      yield* c.admin.client.adminUsers.delete({ path: { id: UserId.make(c.other.id) } }).pipe(expectOk)
      const got = yield* eventually(
        "two retractions",
        Effect.sync(() => {
          const r = p.receiver.of("member.opted_out")
          return r.length === 2 ? r : undefined
        })
      )
      assert.sameMembers(got.map((r) => r.body.data["member_id"]), [c.member.id, c.other.id])
    }))
})

/** The partner's credentials lose their signing secret (as far as the clear list of names says). */
const onlyApiKey = (partnerId: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql`UPDATE federation_partners SET credential_keys = ARRAY['api_key']::text[] WHERE id = ${partnerId}`
  )
    .pipe(Effect.orDie)

const softDelete = (partnerId: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql`UPDATE federation_partners SET deleted_at = now() WHERE id = ${partnerId}`
  ).pipe(Effect.orDie)

/** A delivery as the subscriber writes it, queued straight in the database (as if before a suspension). */
const queueRow = (tenant: { readonly id: number; readonly slug: string }, partnerId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`
      INSERT INTO federation_deliveries (tenant_id, partner_id, webhook_id, event, body, source_key)
      SELECT ${tenant.id}, ${partnerId}, w.id, 'member.opted_out',
             jsonb_build_object('id', w.id, 'event', 'member.opted_out',
                                'tenant', jsonb_build_object('id', ${tenant.id}::bigint, 'slug', ${tenant.slug}::text),
                                'occurred_at', now()::text, 'data', '{"member_id": 1}'::jsonb), 'test-queued'
      FROM (SELECT gen_random_uuid() AS id) w`).pipe(Effect.orDie)

/** Events of several communities written in one transaction, as the outbox would write them. */
const appendInOneTransaction = (events: ReadonlyArray<readonly [number, DomainEvent]>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(Effect.forEach(events, ([tenantId, event]) => {
      const row = outboxRow(event)
      return sql`INSERT INTO outbox_events (tenant_id, event_type, payload)
                 VALUES (${tenantId}, ${row.type}, ${row.payload}::jsonb)`
    }))).pipe(Effect.orDie)
