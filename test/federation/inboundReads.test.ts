import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { makeActor } from "../fixtures/community.js"
import { makeEvent } from "../fixtures/events.js"
import { federationCall, makeApiKey, makePartner } from "../fixtures/federation.js"
import { join, makeGroup, setGroupStatus } from "../fixtures/groups.js"
import { makeCategory, makeListing } from "../fixtures/listings.js"
import { fromIp, randomIp } from "../fixtures/servers.js"
import { TestApp } from "../fixtures/TestApp.js"
import { makeOpportunity, makeOrganisation, makeReview } from "../fixtures/volunteering.js"
import {
  allPages,
  changeToggles,
  expectRefused,
  federatedCommunity,
  idsOf,
  itemOf,
  listOf,
  MEMBER_FIELDS,
  optIn,
  partnerGet,
  setRow
} from "./inboundKit.js"

const V1 = "/api/v1/federation"

const memberRef = (who: { readonly id: number }) => ({
  id: who.id,
  first_name: "Mia",
  last_name: "Member",
  avatar_url: "https://img.example.org/a.png"
})

layer(TestApp(), { excludeTestServices: true, timeout: "120 seconds" })("federation inbound reads", (it) => {
  it.effect("members: opted-in members only, with exactly the fields that may cross", () =>
    Effect.gen(function*() {
      const c = yield* federatedCommunity()
      const craft = yield* makeCategory(c.tenant, { name: "Woodwork" })
      const bikes = yield* makeCategory(c.tenant, { name: "Bike repair" })
      yield* makeListing(c.member, { categoryId: craft.id })
      yield* makeListing(c.member, { categoryId: bikes.id })
      yield* makeListing(c.member, { categoryId: craft.id })
      yield* makeListing(c.member, { categoryId: bikes.id, type: "request" })
      const page = yield* listOf(`${V1}/members`, c.key)
      assert.deepStrictEqual(idsOf(page), [c.member.id])
      assert.deepStrictEqual(page.meta, { per_page: 20, has_more: false })
      const expected = {
        id: c.member.id,
        first_name: "Mia",
        last_name: "Member",
        avatar_url: "https://img.example.org/a.png",
        bio: "I fix bikes",
        skills: ["Bike repair", "Woodwork"],
        location: "Ghent"
      }
      assert.deepStrictEqual(page.data[0], expected)
      assert.deepStrictEqual(Object.keys(page.data[0]!), MEMBER_FIELDS)
      const one = yield* itemOf(`${V1}/members/${c.member.id}`, c.key)
      assert.deepStrictEqual(one, expected)
      for (const hidden of ["email", "phone", "balance", "role", "status"]) assert.notProperty(one, hidden)
      // Not opted in, unknown, not an id: 404.
      yield* expectRefused(`${V1}/members/${c.other.id}`, c.key, 404, "NOT_FOUND")
      yield* expectRefused(`${V1}/members/999999999`, c.key, 404, "NOT_FOUND")
      yield* expectRefused(`${V1}/members/abc`, c.key, 404, "NOT_FOUND")
      // Opting out, or being suspended, takes a member out at once.
      yield* setRow("users", c.member.id, { status: "suspended" })
      yield* expectRefused(`${V1}/members/${c.member.id}`, c.key, 404, "NOT_FOUND")
      assert.deepStrictEqual(idsOf(yield* listOf(`${V1}/members`, c.key)), [])
    }))

  it.effect("members: pages follow the cursor; per_page and cursor are validated", () =>
    Effect.gen(function*() {
      const c = yield* federatedCommunity({ members: 4 })
      for (const m of c.members) yield* optIn(m)
      const pages = yield* allPages(`${V1}/members`, c.key, 2)
      assert.deepStrictEqual(pages.map((p) => p.data.length), [2, 2, 1])
      const ids = pages.flatMap(idsOf) as Array<number>
      assert.deepStrictEqual(ids, [...c.members.map((m) => m.id), c.member.id].sort((a, b) => b - a))
      assert.strictEqual(pages[0]!.meta.per_page, 2)
      yield* expectRefused(`${V1}/members?per_page=101`, c.key, 422, "VALIDATION_ERROR", "per_page")
      yield* expectRefused(`${V1}/members?per_page=0`, c.key, 422, "VALIDATION_ERROR", "per_page")
      yield* expectRefused(`${V1}/members?cursor=not-a-cursor!`, c.key, 422, "VALIDATION_ERROR", "cursor")
      yield* expectRefused(`${V1}/listings?cursor=WyJ4Il0`, c.key, 422, "VALIDATION_ERROR", "cursor")
      yield* expectRefused(`${V1}/events?cursor=MTI`, c.key, 422, "VALIDATION_ERROR", "cursor")
      assert.strictEqual((yield* listOf(`${V1}/members?per_page=100`, c.key)).meta.per_page, 100)
    }))

  it.effect("listings: active listings of opted-in members; others are absent and 404", () =>
    Effect.gen(function*() {
      const c = yield* federatedCommunity()
      const category = yield* makeCategory(c.tenant, { name: "Gardening" })
      const shared = yield* makeListing(c.member, { categoryId: category.id, hoursEstimate: 1.5, location: "Ghent" })
      const request = yield* makeListing(c.member, { type: "request" })
      const pending = yield* makeListing(c.member, { status: "pending" })
      const deleted = yield* makeListing(c.member)
      yield* setRow("listings", deleted.id, { deleted_at: new Date() })
      const notOptedIn = yield* makeListing(c.other)
      const page = yield* listOf(`${V1}/listings`, c.key)
      assert.deepStrictEqual(idsOf(page), [request.id, shared.id])
      const item = yield* itemOf(`${V1}/listings/${shared.id}`, c.key)
      assert.deepStrictEqual(Object.keys(item), [
        "id",
        "type",
        "title",
        "description",
        "category",
        "hours_estimate",
        "location",
        "owner",
        "created_at",
        "updated_at"
      ])
      assert.deepInclude(item, {
        id: shared.id,
        type: "offer",
        title: shared.title,
        category: { id: category.id, name: "Gardening" },
        hours_estimate: 1.5,
        location: "Ghent",
        owner: memberRef(c.member)
      })
      assert.deepStrictEqual(page.data[1], item)
      assert.match(item["created_at"] as string, /Z$/)
      for (const id of [pending.id, deleted.id, notOptedIn.id, 999999999]) {
        yield* expectRefused(`${V1}/listings/${id}`, c.key, 404, "NOT_FOUND")
      }
      // The owner opting out withdraws their listings.
      yield* c.member.client.users.updateMe({ payload: { federation_opt_in: false } })
      assert.deepStrictEqual(idsOf(yield* listOf(`${V1}/listings`, c.key)), [])
      yield* expectRefused(`${V1}/listings/${shared.id}`, c.key, 404, "NOT_FOUND")
    }))

  it.effect("another community's records are 404 to this community's key", () =>
    Effect.gen(function*() {
      const c = yield* federatedCommunity()
      const d = yield* federatedCommunity()
      const listing = yield* makeListing(d.member)
      const event = yield* makeEvent(d.member)
      yield* setRow("events", event.id, { federated_visibility: "partners" })
      yield* makeReview(d.other, { type: "user", id: d.member.id }, 5)
      assert.strictEqual((yield* itemOf(`${V1}/members/${d.member.id}`, d.key))["id"], d.member.id)
      yield* expectRefused(`${V1}/members/${d.member.id}`, c.key, 404, "NOT_FOUND")
      yield* expectRefused(`${V1}/listings/${listing.id}`, c.key, 404, "NOT_FOUND")
      yield* expectRefused(`${V1}/events/${event.id}`, c.key, 404, "NOT_FOUND")
      yield* expectRefused(`${V1}/reviews?member_id=${d.member.id}`, c.key, 404, "NOT_FOUND", "member_id")
      assert.deepStrictEqual(idsOf(yield* listOf(`${V1}/members`, c.key)), [c.member.id])
      assert.deepStrictEqual(idsOf(yield* listOf(`${V1}/listings`, c.key)), [])
    }))

  it.effect("events: shared upcoming events soonest first; none, past and cancelled ones are not listed", () =>
    Effect.gen(function*() {
      const c = yield* federatedCommunity()
      const later = yield* makeEvent(c.member, { startsInHours: 72 })
      const sooner = yield* makeEvent(c.other, { startsInHours: 24, hours: null })
      const running = yield* makeEvent(c.member, { startsInHours: -1, hours: 3 })
      const past = yield* makeEvent(c.member, { startsInHours: -48 })
      const cancelled = yield* makeEvent(c.member, { status: "cancelled" })
      const local = yield* makeEvent(c.member)
      for (const e of [later, sooner, running, past, cancelled]) {
        yield* setRow("events", e.id, { federated_visibility: "partners" })
      }
      const pages = yield* allPages(`${V1}/events`, c.key, 2)
      assert.deepStrictEqual(pages.flatMap(idsOf), [running.id, sooner.id, later.id])
      const item = yield* itemOf(`${V1}/events/${later.id}`, c.key)
      assert.deepStrictEqual(Object.keys(item), [
        "id",
        "title",
        "description",
        "start_time",
        "end_time",
        "location",
        "is_online",
        "max_attendees",
        "image_url",
        "status",
        "federated_visibility",
        "organiser",
        "created_at",
        "updated_at"
      ])
      assert.deepInclude(item, {
        id: later.id,
        title: later.title,
        status: "active",
        federated_visibility: "partners",
        organiser: memberRef(c.member)
      })
      // An organiser who has not opted in is not named.
      const ofOther = yield* itemOf(`${V1}/events/${sooner.id}`, c.key)
      assert.isNull(ofOther["organiser"])
      assert.isNull(ofOther["end_time"])
      // Past and cancelled shared events can still be read by id; `none` cannot.
      assert.strictEqual((yield* itemOf(`${V1}/events/${cancelled.id}`, c.key))["status"], "cancelled")
      assert.strictEqual((yield* itemOf(`${V1}/events/${past.id}`, c.key))["id"], past.id)
      yield* expectRefused(`${V1}/events/${local.id}`, c.key, 404, "NOT_FOUND")
      yield* expectRefused(`${V1}/events/999999999`, c.key, 404, "NOT_FOUND")
    }))

  it.effect("events: a recurring series' template is not shown, its occurrences are", () =>
    Effect.gen(function*() {
      const c = yield* federatedCommunity()
      const template = yield* makeEvent(c.member, { startsInHours: 10 })
      const occurrence = yield* makeEvent(c.member, { startsInHours: 10 })
      yield* setRow("events", template.id, { federated_visibility: "partners", is_recurring_template: true })
      yield* setRow("events", occurrence.id, { federated_visibility: "partners", parent_event_id: template.id })
      assert.deepStrictEqual(idsOf(yield* listOf(`${V1}/events`, c.key)), [occurrence.id])
      yield* expectRefused(`${V1}/events/${template.id}`, c.key, 404, "NOT_FOUND")
    }))

  it.effect("groups: public, active groups whose owner opted in, with their member count", () =>
    Effect.gen(function*() {
      const c = yield* federatedCommunity()
      const shared = yield* makeGroup(c.member, { location: "Ghent" })
      const privateGroup = yield* makeGroup(c.member, { visibility: "private" })
      const dormant = yield* makeGroup(c.member)
      yield* setGroupStatus(dormant, "dormant")
      const ofOther = yield* makeGroup(c.other)
      yield* join(c.other, shared)
      const page = yield* listOf(`${V1}/groups`, c.key)
      assert.deepStrictEqual(idsOf(page), [shared.id])
      const [item] = page.data
      assert.deepStrictEqual(Object.keys(item!), [
        "id",
        "name",
        "description",
        "location",
        "member_count",
        "created_at"
      ])
      assert.deepInclude(item, { id: shared.id, name: shared.name, location: "Ghent", member_count: 2 })
      assert.notInclude(JSON.stringify(page), String(privateGroup.name))
      assert.notInclude(JSON.stringify(page), String(ofOther.name))
      yield* optIn(c.other)
      assert.deepStrictEqual(idsOf(yield* listOf(`${V1}/groups`, c.key)), [ofOther.id, shared.id])
      const paged = yield* allPages(`${V1}/groups`, c.key, 1)
      assert.deepStrictEqual(paged.flatMap(idsOf), [ofOther.id, shared.id])
    }))

  it.effect("reviews: a member's published reviews, reviewers named only when they may be", () =>
    Effect.gen(function*() {
      const c = yield* federatedCommunity()
      const partner = yield* makePartner(c.tenant)
      const optedInReviewer = yield* makeActor(c.tenant, { firstName: "Rita", lastName: "Reviewer" }, "token")
      yield* optIn(optedInReviewer)
      const first = yield* makeReview(c.other, { type: "user", id: c.member.id }, 4, "Kind and on time")
      const second = yield* makeReview(optedInReviewer, { type: "user", id: c.member.id }, 5, "Great")
      const sql = yield* SqlClient.SqlClient
      const [remote] = yield* sql<{ id: string }>`
        INSERT INTO reviews (tenant_id, reviewer_id, target_type, target_id, rating, comment, is_federated,
                             federation_partner_id, reviewer_name, reviewer_external_id)
        VALUES (${c.tenant.id}, NULL, 'user', ${c.member.id}, 3, 'Fine', true, ${partner.id}, 'Pat Partner', 'x-1')
        RETURNING id`
      const hidden = yield* makeReview(c.admin, { type: "user", id: c.member.id }, 1)
      yield* sql`UPDATE reviews SET approved = false WHERE id = ${hidden.id}`
      yield* makeReview(c.member, { type: "user", id: c.other.id }, 5)
      const page = yield* listOf(`${V1}/reviews?member_id=${c.member.id}`, c.key)
      assert.deepStrictEqual(idsOf(page), [Number(remote!.id), second.id, first.id])
      assert.deepStrictEqual(page.data.map((r) => r["reviewer"]), [
        { id: null, name: "Pat Partner" },
        { id: optedInReviewer.id, name: "Rita Reviewer" },
        null
      ])
      assert.deepStrictEqual(Object.keys(page.data[2]!), [
        "id",
        "member_id",
        "rating",
        "comment",
        "is_federated",
        "reviewer",
        "created_at"
      ])
      assert.deepInclude(page.data[2], {
        id: first.id,
        member_id: c.member.id,
        rating: 4,
        comment: "Kind and on time",
        is_federated: false
      })
      assert.strictEqual(page.data[0]!["is_federated"], true)
      const paged = yield* allPages(`${V1}/reviews?member_id=${c.member.id}`, c.key, 2)
      assert.deepStrictEqual(paged.flatMap(idsOf), idsOf(page))
      yield* expectRefused(`${V1}/reviews`, c.key, 422, "VALIDATION_ERROR", "member_id")
      yield* expectRefused(`${V1}/reviews?member_id=abc`, c.key, 422, "VALIDATION_ERROR", "member_id")
      yield* expectRefused(`${V1}/reviews?member_id=${c.other.id}`, c.key, 404, "NOT_FOUND", "member_id")
      yield* expectRefused(`${V1}/reviews?member_id=999999999`, c.key, 404, "NOT_FOUND", "member_id")
    }))

  it.effect("opportunities: open ones of active organisations, on the volunteering toggle and listings:read", () =>
    Effect.gen(function*() {
      const c = yield* federatedCommunity()
      const active = yield* makeOrganisation(c.other)
      const pendingOrg = yield* makeOrganisation(c.admin, { status: "pending" })
      const open = yield* makeOpportunity(active, { title: "Paint the hall" })
      yield* makeOpportunity(active, { status: "closed" })
      yield* makeOpportunity(pendingOrg)
      const second = yield* makeOpportunity(active)
      const pages = yield* allPages(`${V1}/opportunities`, c.key, 1)
      assert.deepStrictEqual(pages.flatMap(idsOf), [second.id, open.id])
      const item = pages[1]!.data[0]!
      assert.deepStrictEqual(Object.keys(item), [
        "id",
        "title",
        "description",
        "location",
        "organisation",
        "created_at",
        "updated_at"
      ])
      assert.deepInclude(item, {
        id: open.id,
        title: "Paint the hall",
        organisation: { id: active.id, name: active.name }
      })
      yield* changeToggles(c.admin, { volunteering: false })
      yield* expectRefused(`${V1}/opportunities`, c.key, 503, "FEDERATION_DISABLED")
      const eventsOnly = yield* makeApiKey(c.tenant, { scopes: ["events:read"] })
      yield* changeToggles(c.admin, { volunteering: true })
      yield* expectRefused(`${V1}/opportunities`, eventsOnly, 403, "PERMISSION_DENIED")
    }))

  it.effect("a key without the route's scope is 403; a toggle off is 503", () =>
    Effect.gen(function*() {
      const c = yield* federatedCommunity({ toggles: ["listings", "events"] })
      const listingsOnly = yield* makeApiKey(c.tenant, { scopes: ["listings:read"] })
      assert.strictEqual((yield* partnerGet(`${V1}/listings`, listingsOnly)).status, 200)
      // Toggle on, scope missing: 403.
      yield* expectRefused(`${V1}/events`, listingsOnly, 403, "PERMISSION_DENIED")
      yield* expectRefused(`${V1}/events/1`, listingsOnly, 403, "PERMISSION_DENIED")
      // The gate answers before validation (D13a's order).
      yield* expectRefused(`${V1}/events?per_page=101`, listingsOnly, 403, "PERMISSION_DENIED")
      yield* expectRefused(`${V1}/members?cursor=x!`, c.key, 503, "FEDERATION_DISABLED")
      // The toggles off (profiles, groups, reviews) answer 503 whatever the scope.
      for (const path of ["members", "groups", `reviews?member_id=${c.member.id}`]) {
        yield* expectRefused(`${V1}/${path}`, c.key, 503, "FEDERATION_DISABLED")
      }
      yield* changeToggles(c.admin, { profiles: true, groups: true, reviews: true })
      for (const path of ["members", "groups", `reviews?member_id=${c.member.id}`]) {
        yield* expectRefused(`${V1}/${path}`, listingsOnly, 403, "PERMISSION_DENIED")
        assert.strictEqual((yield* partnerGet(`${V1}/${path}`, c.key)).status, 200)
      }
      // HMAC-signed, over the path with its query string.
      const signing = yield* makeApiKey(c.tenant, { scopes: ["members:read"], signing: true })
      const signed = yield* federationCall("GET", `${V1}/members?per_page=5`, {
        key: signing,
        sign: true,
        bearer: false,
        headers: fromIp(randomIp())
      })
      assert.strictEqual(signed.status, 200, JSON.stringify(signed.body))
      assert.deepStrictEqual((signed.body as { data: ReadonlyArray<{ id: number }> }).data.map((m) => m.id), [
        c.member.id
      ])
      yield* changeToggles(c.admin, { listings: false, events: false })
      const refused = yield* expectRefused(`${V1}/listings`, c.key, 503, "FEDERATION_DISABLED")
      assert.strictEqual(refused.headers["retry-after"], "3600")
      yield* expectRefused(`${V1}/events`, c.key, 503, "FEDERATION_DISABLED")
      yield* expectRefused(`${V1}/listings/1`, c.key, 503, "FEDERATION_DISABLED")
    }))
})
