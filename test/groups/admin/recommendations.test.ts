import { assert, describe, it as unit, layer } from "@effect/vitest"
import { GroupId } from "@timebank/domain"
import { Effect } from "effect"
import {
  type Candidate,
  type MemberProfile,
  normaliseLocation,
  rankCandidates,
  scoreCandidate,
  WEIGHTS
} from "../../../packages/server/src/groups/admin/GroupRecommendations.js"
import { fieldsOf } from "../../fixtures/bodies.js"
import { expectError, expectOk } from "../../fixtures/client.js"
import { community } from "../../fixtures/community.js"
import { rawCall } from "../../fixtures/events.js"
import { join, makeGroup, makeGroupType, setGroupStatus, setMember } from "../../fixtures/groups.js"
import { TestApp } from "../../fixtures/TestApp.js"

const RECOMMENDATIONS = "/api/v2/admin/groups/recommendations"

const noProfile: MemberProfile = { types: new Map(), locations: new Set(), groupCount: 0 }
const candidate = (overrides: Partial<Candidate> = {}): Candidate => ({
  id: 1,
  typeId: null,
  location: null,
  members: 0,
  recentActivity: 0,
  connections: 0,
  ...overrides
})

describe("recommendation score", () => {
  unit("weights sum to 1; a perfect candidate approaches 1 and an empty one scores 0", () => {
    assert.closeTo(Object.values(WEIGHTS).reduce((a, b) => a + b, 0), 1, 1e-9)
    const profile: MemberProfile = { types: new Map([[7, 2]]), locations: new Set(["leeds"]), groupCount: 2 }
    const best = scoreCandidate(
      profile,
      candidate({ typeId: 7, location: "Leeds", members: 1000, recentActivity: 1000, connections: 1000 })
    )
    assert.isAbove(best.score, 0.98)
    assert.isAtMost(best.score, 1)
    assert.deepStrictEqual(best.reasons, ["same_type", "same_location", "connections", "popular", "active"])
    assert.deepStrictEqual(scoreCandidate(profile, candidate()), { id: 1, score: 0, reasons: [] })
  })

  unit("the type counts by its share of the member's groups; connections and size saturate", () => {
    const profile: MemberProfile = { types: new Map([[7, 1], [8, 3]]), locations: new Set(), groupCount: 4 }
    assert.strictEqual(scoreCandidate(profile, candidate({ typeId: 7 })).score, 0.075)
    assert.strictEqual(scoreCandidate(profile, candidate({ typeId: 8 })).score, 0.225)
    assert.strictEqual(scoreCandidate(profile, candidate({ typeId: 9 })).score, 0)
    assert.strictEqual(scoreCandidate(noProfile, candidate({ connections: 1 })).score, 0.125)
    assert.strictEqual(scoreCandidate(noProfile, candidate({ connections: 3 })).score, 0.188)
    assert.strictEqual(scoreCandidate(noProfile, candidate({ members: 10 })).score, 0.05)
    assert.deepStrictEqual(scoreCandidate(noProfile, candidate({ members: 10 })).reasons, ["popular"])
    assert.deepStrictEqual(scoreCandidate(noProfile, candidate({ members: 9, recentActivity: 10 })).reasons, ["active"])
  })

  unit("locations compare without case, accents, punctuation or extra spaces", () => {
    assert.strictEqual(normaliseLocation("  Zürich -- Nord "), "zurich nord")
    assert.strictEqual(normaliseLocation("ZURICH nord!"), "zurich nord")
    assert.isUndefined(normaliseLocation(" ,. "))
    assert.isUndefined(normaliseLocation(null))
    const profile: MemberProfile = { types: new Map(), locations: new Set(["zurich nord"]), groupCount: 1 }
    assert.deepStrictEqual(scoreCandidate(profile, candidate({ location: "Zürich-Nord" })).reasons, ["same_location"])
  })

  unit("ranking: best first, ties to the larger then the newer group, cut at the limit", () => {
    const ranked = rankCandidates(noProfile, [
      candidate({ id: 1, members: 5 }),
      candidate({ id: 2, connections: 2 }),
      candidate({ id: 3, members: 5 }),
      candidate({ id: 4, members: 6 })
    ], 3)
    assert.deepStrictEqual(ranked.map((r) => r.id), [2, 4, 3])
    assert.strictEqual(ranked[0]!.connections, 2)
    assert.deepStrictEqual(rankCandidates(noProfile, [], 5), [])
  })
})

layer(TestApp(), { excludeTestServices: true, timeout: "120 seconds" })("admin group recommendations", (it) => {
  it.effect("ranks the active public groups the member is not in: type and place, then connections, then the rest", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token", members: 2 })
      const [m1, m2] = c.members
      const type = yield* makeGroupType(c.tenant)
      // The member's own group says what they like: this type, in Leeds.
      const own = yield* makeGroup(c.member, { type_id: type.id, location: "Leeds" })
      const request = yield* c.member.client.connections.request({ payload: { user_id: c.other.id } }).pipe(expectOk)
      yield* c.other.client.connections.accept({ path: { id: request.data.id } }).pipe(expectOk)

      const plain = yield* makeGroup(m1!)
      const withFriend = yield* makeGroup(c.other, { location: "York" })
      const alike = yield* makeGroup(m2!, { type_id: type.id, location: "LEEDS!" })
      // Not candidates: private, waiting for review, archived, joined already (it counts for the member's
      // taste), banned from.
      yield* makeGroup(m1!, { type_id: type.id, location: "Leeds", visibility: "private" })
      const waiting = yield* makeGroup(m1!, { type_id: type.id })
      yield* setGroupStatus(waiting, "pending_review")
      const archived = yield* makeGroup(m1!, { type_id: type.id })
      yield* setGroupStatus(archived, "archived")
      const joined = yield* makeGroup(m2!, { type_id: type.id })
      yield* join(c.member, joined)
      const bannedFrom = yield* makeGroup(m2!, { type_id: type.id, location: "Leeds" })
      yield* join(c.member, bannedFrom)
      yield* setMember(m2!, bannedFrom, c.member, { status: "banned" })

      const res = yield* c.admin.client.adminGroups.recommendations({ urlParams: { user_id: c.member.id } }).pipe(
        expectOk
      )
      assert.deepStrictEqual(
        res.data.map((r) => [r.group.id, r.reasons, r.connections]),
        [
          [alike.id, ["same_type", "same_location"], 0],
          [withFriend.id, ["connections"], 1],
          [plain.id, [], 0]
        ]
      )
      const scores = res.data.map((r) => r.score)
      assert.deepStrictEqual(scores, [...scores].sort((a, b) => b - a))
      assert.strictEqual(scores[0], 0.559)
      assert.notInclude(res.data.map((r) => r.group.id), own.id)

      const top = yield* c.admin.client.adminGroups.recommendations({ urlParams: { user_id: c.member.id, limit: 1 } })
        .pipe(expectOk)
      assert.deepStrictEqual(top.data.map((r) => r.group.id), [GroupId.make(alike.id)])
    }))

  it.effect("a member of another community or nobody → 404; a bad user_id or limit → 422", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      const elsewhere = yield* community({ signIn: "token" })
      yield* makeGroup(c.member)
      for (const userId of [elsewhere.member.id, 999999999]) {
        yield* c.admin.client.adminGroups.recommendations({ urlParams: { user_id: userId } }).pipe(
          expectError(404, "NOT_FOUND")
        )
      }
      for (
        const [query, field] of [["", "user_id"], ["user_id=abc", "user_id"], [
          `user_id=${c.member.id}&limit=0`,
          "limit"
        ]]
      ) {
        const res = yield* rawCall("GET", `${RECOMMENDATIONS}?${query}`, c.admin.headers)
        assert.strictEqual(res.status, 422, res.text)
        assert.deepStrictEqual(fieldsOf(res.body), [field])
      }
    }))
})
