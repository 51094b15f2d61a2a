import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { codeOf, dataOf, fieldsOf } from "../fixtures/bodies.js"
import { asJson, expectError, expectOk } from "../fixtures/client.js"
import { actor, community } from "../fixtures/community.js"
import { makeCategory, makeListing } from "../fixtures/listings.js"
import { rawRequest, TestApp } from "../fixtures/TestApp.js"
import { makeSuperAdmin } from "../fixtures/users.js"
import { makeOpportunity, makeOrganisation } from "../fixtures/volunteering.js"
import { configure, matchesOf, setLocation, setProfile } from "./matchingKit.js"

layer(TestApp(), { excludeTestServices: true, timeout: "120 seconds" })("matching: members", (it) => {
  it.effect("a gardener sees another member's gardening offer first, with reasons; never their own listings", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      const gardening = yield* makeCategory(c.tenant, { name: "Gardening" })
      const repairs = yield* makeCategory(c.tenant, { name: "Repairs" })
      yield* setLocation(c.member, "Bristol")
      yield* setProfile(c.member, {
        skills: ["gardening"],
        categories: [gardening.id],
        availability: { sat: ["morning"] }
      })
      // Low enough for a match on distance alone.
      yield* configure(c.admin, { min_score: 0.1 })
      const fitting = yield* makeListing(c.other, {
        title: "Gardening help",
        description: "Weeding and mowing on Saturday mornings",
        categoryId: gardening.id,
        location: "Keynsham"
      })
      const unrelated = yield* makeListing(c.other, {
        title: "Bicycle repair",
        description: "Punctures and brakes",
        categoryId: repairs.id,
        location: "Bristol"
      })
      const far = yield* makeListing(c.other, {
        title: "Plumbing",
        description: "Taps and pipes",
        categoryId: repairs.id,
        location: "Leeds"
      })
      const own = yield* makeListing(c.member, {
        title: "Gardening tools to lend",
        description: "Spades for gardening",
        categoryId: gardening.id,
        location: "Bristol"
      })
      const organisation = yield* makeOrganisation(c.other)
      const opportunity = yield* makeOpportunity(organisation, { title: "Community gardening day" })

      const list = yield* matchesOf(c.member)
      const ids = list.data.map((m) => `${m.target_type}:${m.target_id}`)
      assert.deepStrictEqual(ids, [
        `listing:${fitting.id}`,
        `opportunity:${opportunity.id}`,
        `listing:${unrelated.id}`
      ])
      assert.strictEqual(list.meta.total, 3)
      const [best, volunteering, weak] = list.data
      assert.deepStrictEqual(best!.reasons, ["category", "skills:gardening", "distance:8km", "availability:sat"])
      // 3·1 + 4·1 + 2·(1 − 8.2/25) + 1·1, over 10.
      assert.closeTo(best!.score, 0.934, 0.005)
      assert.deepStrictEqual(best!.target, { title: "Gardening help", location: "Keynsham", category_id: gardening.id })
      assert.strictEqual(best!.status, "visible")
      assert.strictEqual(best!.user_id, c.member.id)
      // The opportunity has no category nor place (neutral) and names the afternoon (the member is free Saturday
      // mornings): 3·0.5 + 4·1 + 2·0.5 + 1·0.
      assert.deepStrictEqual(volunteering!.reasons, ["skills:gardening"])
      assert.strictEqual(volunteering!.score, 0.65)
      // The bicycle repair is only near: 2·1 + 1·0.5.
      assert.deepStrictEqual(weak!.reasons, ["distance:0km"])
      assert.strictEqual(weak!.score, 0.25)
      assert.notInclude(ids, `listing:${own.id}`)
      assert.notInclude(ids, `listing:${far.id}`)

      // Filter and limit.
      const opportunities = yield* matchesOf(c.member, { target_type: "opportunity" })
      assert.deepStrictEqual(opportunities.data.map((m) => m.target_id), [opportunity.id])
      assert.strictEqual(opportunities.meta.total, 1)
      const top = yield* matchesOf(c.member, { limit: 1 })
      assert.deepStrictEqual(top.data.map((m) => m.target_id), [fitting.id])
      assert.strictEqual(top.meta.total, 3)

      // The owner of those offers, a gardener too, is matched with the member's listing, never with their own.
      yield* setProfile(c.other, { skills: ["gardening"] })
      const forOther = (yield* matchesOf(c.other)).data.map((m) => `${m.target_type}:${m.target_id}`)
      assert.deepStrictEqual(forOther, [`listing:${own.id}`])
    }))

  it.effect("the profile: defaults, partial updates, location from the member profile, and recomputation", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      const gardening = yield* makeCategory(c.tenant, { name: "Gardening" })
      const empty = yield* expectOk(c.member.client.matching.profile())
      assert.deepStrictEqual(empty.data, {
        skills: [],
        availability: {},
        categories: [],
        max_distance_km: null,
        location: null,
        updated_at: null
      })
      yield* setLocation(c.member, "Leeds")
      // Skills are trimmed (which the typed client will not send untrimmed), and repeats dropped ignoring case.
      const untrimmed = yield* rawRequest("PUT", "/api/v2/matches/profile", {
        headers: c.member.headers,
        body: JSON.stringify({ skills: ["  Dog walking ", "dog WALKING", "gardening"] })
      })
      assert.strictEqual(untrimmed.status, 200, untrimmed.text)
      assert.deepStrictEqual(dataOf<{ skills: Array<string> }>(untrimmed.body).skills, ["Dog walking", "gardening"])
      const saved = yield* setProfile(c.member, { categories: [gardening.id], max_distance_km: 10 })
      assert.deepStrictEqual(saved.skills, ["Dog walking", "gardening"])
      assert.deepStrictEqual(saved.categories, [gardening.id])
      assert.strictEqual(saved.max_distance_km, 10)
      assert.strictEqual(saved.location, "Leeds")
      assert.isNotNull(saved.updated_at)
      // A partial update keeps the other keys.
      const again = yield* setProfile(c.member, { availability: { mon: ["evening", "morning"] } })
      assert.deepStrictEqual(again.skills, ["Dog walking", "gardening"])
      assert.deepStrictEqual(again.availability, { mon: ["evening", "morning"] })
      assert.strictEqual(again.max_distance_km, 10)
      const cleared = yield* setProfile(c.member, { max_distance_km: null, skills: [] })
      assert.strictEqual(cleared.max_distance_km, null)
      assert.deepStrictEqual(cleared.skills, [])
      assert.deepStrictEqual(asJson((yield* expectOk(c.member.client.matching.profile())).data), asJson(cleared))

      // Matches follow the profile at once: no gardening skill, no match; with it, a match.
      const listing = yield* makeListing(c.other, { title: "Dog walking", description: "Twice a week" })
      assert.strictEqual((yield* matchesOf(c.member)).meta.total, 0)
      yield* setProfile(c.member, { skills: ["dog walking"] })
      const after = yield* matchesOf(c.member)
      assert.deepStrictEqual(after.data.map((m) => m.target_id), [listing.id])
      assert.deepStrictEqual(after.data[0]!.reasons, ["skills:dog walking"])
      // Moving closer makes a distance reason once the listing has a place near the member.
      const near = yield* makeListing(c.other, { title: "Dog walking too", description: "Daily", location: "Leeds" })
      yield* expectOk(c.admin.client.adminMatching.clearCache())
      const located = yield* matchesOf(c.member)
      const nearMatch = located.data.find((m) => m.target_id === near.id)
      assert.deepStrictEqual(nearMatch?.reasons, ["skills:dog walking", "distance:0km"])
      assert.strictEqual(located.data[0]!.target_id, near.id)
      // The member moves away: the place is part of what the stored matches were computed with.
      yield* setLocation(c.member, "Bristol")
      const moved = yield* matchesOf(c.member)
      assert.deepStrictEqual(moved.data.find((m) => m.target_id === near.id)?.reasons, ["skills:dog walking"])
    }))

  it.effect("profile bodies that break the rules are 422 with their field", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      const events = yield* makeCategory(c.tenant, { type: "event" })
      const gardening = yield* makeCategory(c.tenant)
      const other = yield* community({ signIn: "token" })
      const foreign = yield* makeCategory(other.tenant)
      // Categories the schema accepts but the community does not have as listing categories.
      for (const categories of [[events.id], [gardening.id, foreign.id]]) {
        const failure = yield* expectError(422, "VALIDATION_ERROR")(
          c.member.client.matching.updateProfile({ payload: { categories } })
        )
        assert.deepStrictEqual(failure.fields, [`categories.${categories.length - 1}`])
      }
      // Shapes the typed client refuses to send.
      const raw = (body: string) => rawRequest("PUT", "/api/v2/matches/profile", { headers: c.member.headers, body })
      const skills31 = JSON.stringify(Array.from({ length: 31 }, (_, i) => `skill ${i}`))
      for (
        const [body, field] of [
          [`{"skills": ${skills31}}`, "skills"],
          [`{"skills": ["${"x".repeat(51)}"]}`, "skills.0"],
          [`{"skills": ["ok", "   "]}`, "skills.1"],
          [`{"skills": "gardening"}`, "skills"],
          [`{"max_distance_km": 0}`, "max_distance_km"],
          [`{"max_distance_km": 1001}`, "max_distance_km"],
          [`{"availability": {"sat": ["noon"]}}`, "availability.sat.0"],
          [`{"availability": {"sat": []}}`, "availability.sat"],
          [`{"availability": {"sat": ["morning", "morning"]}}`, "availability.sat"],
          [`{"availability": {"funday": ["morning"]}}`, "availability.funday"],
          [`{"colour": "blue"}`, "colour"],
          [`{"categories": [2, 2]}`, "categories"],
          [`{"categories": [0]}`, "categories.0"]
        ] as const
      ) {
        const answer = yield* raw(body)
        assert.strictEqual(answer.status, 422, body)
        assert.strictEqual(codeOf(answer.body), "VALIDATION_ERROR", body)
        assert.include(fieldsOf(answer.body), field, body)
      }
      // Nothing was stored.
      assert.isNull((yield* expectOk(c.member.client.matching.profile())).data.updated_at)
    }))

  it.effect("without a token 401; with the feature off 403 for members (admins still configure)", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token", features: { matching: false } })
      for (const [method, path] of [["GET", "/api/v2/matches"], ["GET", "/api/v2/matches/profile"]] as const) {
        const anonymous = yield* rawRequest(method, path, { headers: c.anonymous })
        assert.strictEqual(anonymous.status, 401, path)
        assert.strictEqual(codeOf(anonymous.body), "AUTH_REQUIRED")
      }
      yield* expectError(403, "FEATURE_DISABLED")(c.member.client.matching.list({ urlParams: {} }))
      yield* expectError(403, "FEATURE_DISABLED")(c.member.client.matching.profile())
      yield* expectError(403, "FEATURE_DISABLED")(
        c.member.client.matching.updateProfile({ payload: { skills: ["gardening"] } })
      )
      const config = yield* expectOk(c.admin.client.adminMatching.config())
      assert.strictEqual(config.data.approval_required, false)
      // A platform super-admin visiting the community has no matches of its own there.
      const visiting = yield* community({ signIn: "token" })
      const superAdmin = yield* actor(yield* makeSuperAdmin(), "token")
      const asSuper = yield* rawRequest("GET", "/api/v2/matches", {
        headers: { ...superAdmin.headers, "x-tenant-id": String(visiting.tenant.id) }
      })
      assert.strictEqual(asSuper.status, 403)
      assert.strictEqual(codeOf(asSuper.body), "FORBIDDEN")
    }))
})
