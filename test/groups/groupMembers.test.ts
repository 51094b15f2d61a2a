import { assert, describe, layer } from "@effect/vitest"
import { GroupId, type GroupMember, RecordId, UserId } from "@timebank/domain"
import { Effect } from "effect"
import { codeOf, sortedFieldsOf as fieldsOf } from "../fixtures/bodies.js"
import { type ApiClient, apiClient, expectError, expectOk, expectStatus, pageCursor } from "../fixtures/client.js"
import { community } from "../fixtures/community.js"
import { outboxOf, rawCall } from "../fixtures/events.js"
import { join, makeGroup, readGroup, setGroupStatus, setMember } from "../fixtures/groups.js"
import { TestApp } from "../fixtures/TestApp.js"
import { authHeaders, makeSuperAdmin } from "../fixtures/users.js"

/** Every page of a group's members for `client` (status filter optional); answers `[user id, role, status]`. */
const membersOf = (
  client: ApiClient,
  group: { readonly id: number },
  status?: GroupMember["status"],
  perPage = 2
) =>
  Effect.gen(function*() {
    const rows: Array<[number, string, string]> = []
    let cursor: string | undefined
    for (let page = 0; page < 50; page++) {
      const res = yield* client.groupMembers.list({
        path: { id: GroupId.make(group.id) },
        urlParams: {
          per_page: perPage,
          ...(status === undefined ? {} : { status }),
          ...(cursor === undefined ? {} : { cursor: pageCursor(RecordId, cursor) })
        }
      }).pipe(expectOk)
      rows.push(...res.data.map((m): [number, string, string] => [m.user.id, m.role, m.status]))
      if (res.meta.cursor === undefined) break
      cursor = res.meta.cursor
    }
    return rows
  })

const byId = (rows: ReadonlyArray<[number, string, string]>) => [...rows].sort((a, b) => a[0] - b[0])

layer(TestApp(), { excludeTestServices: true, timeout: "120 seconds" })("group members", (it) => {
  describe("join and leave", () => {
    it.effect("public: join → 201 active member, counted; again → 409; leave → left; join again works", () =>
      Effect.gen(function*() {
        const { member, other, tenant } = yield* community()
        const group = yield* makeGroup(member)
        const joined = yield* other.client.groupMembers.join({ path: { id: group.id }, withResponse: true })
          .pipe(expectStatus(201))
        assert.deepInclude(joined.data, { group_id: group.id, role: "member", status: "active" })
        assert.deepStrictEqual(joined.data.user, {
          id: UserId.make(other.id),
          first_name: "Otto",
          last_name: "Other",
          avatar_url: null
        })
        const seen = yield* readGroup(other, group)
        assert.strictEqual(seen.member_count, 2)
        assert.deepStrictEqual(seen.membership, { role: "member", status: "active" })
        assert.deepStrictEqual(
          yield* membersOf(member.client, group),
          byId([[member.id, "owner", "active"], [other.id, "member", "active"]])
        )

        const again = yield* other.client.groupMembers.join({ path: { id: group.id } }).pipe(
          expectError(409, "ALREADY_EXISTS")
        )
        assert.include(again.message, "member")

        const left = yield* other.client.groupMembers.leave({ path: { id: group.id } }).pipe(expectOk)
        assert.deepStrictEqual(left.data, { group_id: group.id, user_id: UserId.make(other.id), left: true })
        const after = yield* readGroup(other, group)
        assert.strictEqual(after.member_count, 1)
        assert.isNull(after.membership)
        yield* other.client.groupMembers.leave({ path: { id: group.id } }).pipe(expectError(404, "NOT_FOUND"))
        yield* join(other, group)
        assert.deepStrictEqual(
          (yield* outboxOf(tenant, "GroupMemberJoined")).map((e) => [e["user_id"], e["role"], e["approved_by"]]),
          [[other.id, "member", null], [other.id, "member", null]]
        )
        assert.deepStrictEqual(yield* outboxOf(tenant, "GroupMemberLeft"), [{
          group_id: group.id,
          group_name: group.name,
          user_id: other.id,
          reason: "left",
          removed_by: null
        }])
      }))

    it.effect("private: join → pending until an organiser approves; pending members see no members list", () =>
      Effect.gen(function*() {
        const { member, members: [outsider], other, tenant } = yield* community({ members: 1 })
        const group = yield* makeGroup(member, { visibility: "private" })
        const pending = yield* join(other, group)
        assert.deepInclude(pending, { role: "member", status: "pending" })
        const seen = yield* readGroup(other, group)
        assert.strictEqual(seen.member_count, 1)
        assert.deepStrictEqual(seen.membership, { role: "member", status: "pending" })
        yield* other.client.groupMembers.join({ path: { id: group.id } }).pipe(expectError(409, "ALREADY_EXISTS"))
        assert.deepStrictEqual(yield* outboxOf(tenant, "GroupMemberJoined"), [])

        // The members of a private group are for its active members (not the pending ones, nor outsiders).
        for (const who of [other, outsider!]) {
          yield* who.client.groupMembers.list({ path: { id: group.id }, urlParams: {} }).pipe(
            expectError(403, "FORBIDDEN")
          )
        }
        // The owner sees the request, and approves it.
        assert.deepStrictEqual(yield* membersOf(member.client, group, "pending"), [[other.id, "member", "pending"]])
        const approved = yield* setMember(member, group, other, { status: "active" })
        assert.deepInclude(approved, { status: "active", role: "member" })
        assert.strictEqual((yield* readGroup(outsider!, group)).member_count, 2)
        assert.deepStrictEqual(
          yield* membersOf(other.client, group),
          byId([[member.id, "owner", "active"], [other.id, "member", "active"]])
        )
        assert.deepStrictEqual(
          (yield* outboxOf(tenant, "GroupMemberJoined")).map((e) => [e["user_id"], e["approved_by"], e["visibility"]]),
          [[other.id, member.id, "private"]]
        )

        // A pending member may withdraw; that is no "member left".
        yield* join(outsider!, group)
        yield* outsider!.client.groupMembers.leave({ path: { id: group.id } }).pipe(expectOk)
        assert.deepStrictEqual(yield* outboxOf(tenant, "GroupMemberLeft"), [])
        assert.deepStrictEqual(yield* membersOf(member.client, group, "pending"), [])
      }))

    it.effect("banned: join and leave → 403; the owner cannot leave (409); closed groups take no members (409)", () =>
      Effect.gen(function*() {
        const { member, members: [late], other, tenant } = yield* community({ members: 1 })
        const group = yield* makeGroup(member)
        yield* join(other, group)
        const banned = yield* setMember(member, group, other, { status: "banned" })
        assert.strictEqual(banned.status, "banned")
        assert.deepStrictEqual(yield* outboxOf(tenant, "GroupMemberLeft"), [{
          group_id: group.id,
          group_name: group.name,
          user_id: other.id,
          reason: "banned",
          removed_by: member.id
        }])
        yield* other.client.groupMembers.join({ path: { id: group.id } }).pipe(expectError(403, "FORBIDDEN"))
        yield* other.client.groupMembers.leave({ path: { id: group.id } }).pipe(expectError(403, "FORBIDDEN"))
        assert.deepStrictEqual((yield* readGroup(other, group)).membership, { role: "member", status: "banned" })
        // Lifting the ban makes them a member again.
        yield* setMember(member, group, other, { status: "active" })
        assert.strictEqual((yield* readGroup(other, group)).member_count, 2)

        const owner = yield* member.client.groupMembers.leave({ path: { id: group.id } })
          .pipe(expectError(409, "INVALID_STATE"))
        assert.include(owner.message, "hand the group over")

        yield* setGroupStatus(group, "archived")
        yield* late!.client.groupMembers.join({ path: { id: group.id } }).pipe(expectError(409, "INVALID_STATE"))
        // Leaving an archived group is fine.
        yield* other.client.groupMembers.leave({ path: { id: group.id } }).pipe(expectOk)
      }))

    it.effect("401 anonymous, 403 visiting super-admin and feature off, 404 another community's group", () =>
      Effect.gen(function*() {
        const { member, tenant, visitor } = yield* community()
        const group = yield* makeGroup(member)
        const path = { id: group.id }
        yield* visitor.client.groupMembers.join({ path }).pipe(expectError(401, "AUTH_REQUIRED"))
        yield* visitor.client.groupMembers.leave({ path }).pipe(expectError(401, "AUTH_REQUIRED"))
        yield* visitor.client.groupMembers.list({ path, urlParams: {} }).pipe(expectError(401, "AUTH_REQUIRED"))
        const visiting = yield* apiClient(yield* authHeaders(yield* makeSuperAdmin(), tenant))
        yield* visiting.groupMembers.join({ path }).pipe(expectError(403, "FORBIDDEN"))

        const elsewhere = yield* community()
        yield* elsewhere.member.client.groupMembers.join({ path }).pipe(expectError(404, "NOT_FOUND"))
        yield* elsewhere.member.client.groupMembers.leave({ path }).pipe(expectError(404, "NOT_FOUND"))
        yield* elsewhere.admin.client.groupMembers.list({ path, urlParams: {} }).pipe(expectError(404, "NOT_FOUND"))
        // Raw: an id the client cannot write.
        const odd = yield* rawCall("POST", "/api/v2/groups/abc/join", member.headers)
        assert.strictEqual(odd.status, 404, odd.text)
        assert.strictEqual(codeOf(odd.body), "NOT_FOUND")

        const off = yield* community({ features: { groups: false } })
        yield* off.member.client.groupMembers.join({ path }).pipe(expectError(403, "FEATURE_DISABLED"))
        yield* off.member.client.groupMembers.list({ path, urlParams: {} }).pipe(expectError(403, "FEATURE_DISABLED"))
      }))
  })

  describe("members list", () => {
    it.effect("in user id order, cursor pages; organisers and admins see pending and banned, others active only", () =>
      Effect.gen(function*() {
        const { admin, member, members: [a, b, c, d], other } = yield* community({ members: 4 })
        const group = yield* makeGroup(member)
        for (const who of [a!, b!, c!]) yield* join(who, group)
        yield* setMember(member, group, c!, { status: "banned" })
        yield* setMember(member, group, b!, { role: "organiser" })

        const everyone = byId([
          [member.id, "owner", "active"],
          [a!.id, "member", "active"],
          [b!.id, "organiser", "active"],
          [c!.id, "member", "banned"]
        ])
        const active = everyone.filter((m) => m[2] === "active")
        assert.deepStrictEqual(yield* membersOf(member.client, group), everyone)
        assert.deepStrictEqual(yield* membersOf(b!.client, group, undefined, 50), everyone)
        assert.deepStrictEqual(yield* membersOf(admin.client, group, undefined, 1), everyone)
        assert.deepStrictEqual(yield* membersOf(member.client, group, "banned"), [[c!.id, "member", "banned"]])
        // A public group's members are listed for anyone of the community: the active ones.
        assert.deepStrictEqual(yield* membersOf(a!.client, group), active)
        assert.deepStrictEqual(yield* membersOf(d!.client, group, "active"), active)
        for (const status of ["pending", "banned"] as const) {
          yield* other.client.groupMembers.list({ path: { id: group.id }, urlParams: { status } })
            .pipe(expectError(403, "FORBIDDEN"))
        }
        // Raw: a status the contract does not know, and a cursor that does not decode.
        const bad = yield* rawCall("GET", `/api/v2/groups/${group.id}/members?status=left&cursor=%21`, member.headers)
        assert.strictEqual(bad.status, 422, bad.text)
        assert.deepStrictEqual(fieldsOf(bad.body), ["cursor", "status"])
      }))

    it.effect("a private group's members: active members and admins only", () =>
      Effect.gen(function*() {
        const { admin, member, other } = yield* community()
        const group = yield* makeGroup(member, { visibility: "private" })
        yield* other.client.groupMembers.list({ path: { id: group.id }, urlParams: {} }).pipe(
          expectError(403, "FORBIDDEN")
        )
        assert.deepStrictEqual(yield* membersOf(admin.client, group), [[member.id, "owner", "active"]])
      }))
  })

  describe("changing memberships", () => {
    it.effect("organisers run members, not organisers; owners and admins run organisers; plain members → 403", () =>
      Effect.gen(function*() {
        const { admin, member, members: [organiser, second, plain], other } = yield* community({ members: 3 })
        const group = yield* makeGroup(member)
        for (const who of [organiser!, second!, plain!, other]) yield* join(who, group)
        yield* setMember(member, group, organiser!, { role: "organiser" })

        // An organiser promotes a member, but changes no organiser and hands nothing over.
        const promoted = yield* setMember(organiser!, group, second!, { role: "organiser" })
        assert.strictEqual(promoted.role, "organiser")
        const path = (who: { id: number }) => ({ id: GroupId.make(group.id), userId: UserId.make(who.id) })
        yield* organiser!.client.groupMembers.update({ path: path(second!), payload: { role: "member" } })
          .pipe(expectError(403, "FORBIDDEN"))
        yield* organiser!.client.groupMembers.update({ path: path(plain!), payload: { role: "owner" } })
          .pipe(expectError(403, "FORBIDDEN"))
        yield* plain!.client.groupMembers.update({ path: path(other), payload: { status: "banned" } })
          .pipe(expectError(403, "FORBIDDEN"))
        // Admins run any membership, without being members.
        const demoted = yield* setMember(admin, group, second!, { role: "member" })
        assert.strictEqual(demoted.role, "member")
        const bannedByOrganiser = yield* setMember(organiser!, group, plain!, { status: "banned" })
        assert.strictEqual(bannedByOrganiser.status, "banned")
        // The owner's membership stays as it is, whoever asks.
        for (const by of [member, admin]) {
          yield* by.client.groupMembers.update({ path: path(member), payload: { role: "member" } })
            .pipe(expectError(409, "INVALID_STATE"))
        }
        // Unchanged is fine.
        yield* setMember(organiser!, group, other, { status: "active", role: "member" })
        assert.deepStrictEqual(
          byId(yield* membersOf(admin.client, group)),
          byId([
            [member.id, "owner", "active"],
            [organiser!.id, "organiser", "active"],
            [second!.id, "member", "active"],
            [plain!.id, "member", "banned"],
            [other.id, "member", "active"]
          ])
        )
      }))

    it.effect("handing over: role owner to an active member; the old owner becomes organiser and may leave", () =>
      Effect.gen(function*() {
        const { member, members: [heir, applicant], other, tenant } = yield* community({ members: 2 })
        const group = yield* makeGroup(member, { visibility: "private" })
        yield* join(heir!, group)
        yield* setMember(member, group, heir!, { status: "active" })
        yield* join(applicant!, group)
        const path = (who: { id: number }) => ({ id: GroupId.make(group.id), userId: UserId.make(who.id) })
        yield* member.client.groupMembers.update({ path: path(applicant!), payload: { role: "owner" } })
          .pipe(expectError(409, "INVALID_STATE"))

        const owner = yield* setMember(member, group, heir!, { role: "owner" })
        assert.deepInclude(owner, { role: "owner", status: "active" })
        const seen = yield* readGroup(member, group)
        assert.strictEqual(seen.owner.id, heir!.id)
        assert.deepStrictEqual(seen.membership, { role: "organiser", status: "active" })
        const [event] = yield* outboxOf(tenant, "GroupUpdated")
        assert.deepInclude(event, { group_id: group.id, fields: ["owner_id"], updated_by: member.id })
        assert.strictEqual((event!["group"] as { owner_id: number }).owner_id, heir!.id)
        // The new owner runs the group; the old one may now leave.
        yield* setMember(heir!, group, member, { role: "member" })
        yield* member.client.groupMembers.leave({ path: { id: group.id } }).pipe(expectOk)
        yield* heir!.client.groupMembers.leave({ path: { id: group.id } }).pipe(expectError(409, "INVALID_STATE"))
        yield* other.client.groups.update({ path: { id: group.id }, payload: { name: "x" } }).pipe(
          expectError(403, "FORBIDDEN")
        )
      }))

    it.effect("404 for a member or group of another community and for non-members; 422 for bad values; 401", () =>
      Effect.gen(function*() {
        const { admin, member, other, visitor } = yield* community()
        const group = yield* makeGroup(member)
        const elsewhere = yield* community()
        const path = (groupId: number, userId: number) => ({ id: GroupId.make(groupId), userId: UserId.make(userId) })
        // A member of another community, and a member of this one without a membership.
        for (const userId of [elsewhere.member.id, other.id]) {
          yield* admin.client.groupMembers.update({ path: path(group.id, userId), payload: { status: "active" } })
            .pipe(expectError(404, "NOT_FOUND"))
        }
        const foreignGroup = yield* makeGroup(elsewhere.member)
        yield* admin.client.groupMembers.update({
          path: path(foreignGroup.id, elsewhere.member.id),
          payload: { role: "member" }
        })
          .pipe(expectError(404, "NOT_FOUND"))
        yield* visitor.client.groupMembers.update({ path: path(group.id, member.id), payload: { role: "member" } })
          .pipe(expectError(401, "AUTH_REQUIRED"))
        // Raw: values the client refuses to send.
        const bad = yield* rawCall("PUT", `/api/v2/groups/${group.id}/members/${member.id}`, admin.headers, {
          role: "king",
          status: "pending"
        })
        assert.strictEqual(bad.status, 422, bad.text)
        assert.deepStrictEqual(fieldsOf(bad.body), ["role", "status"])
        const odd = yield* rawCall("PUT", `/api/v2/groups/${group.id}/members/0`, admin.headers, { role: "member" })
        assert.strictEqual(odd.status, 404, odd.text)
      }))
  })
})
