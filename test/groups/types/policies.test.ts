import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { type Group, GroupId, type GroupTypeId, type GroupTypePoliciesInput, UserId } from "@timebank/domain"
import { Effect, Either } from "effect"
import { type ApiClient, expectError, expectOk, expectStatus } from "../../fixtures/client.js"
import { type Actor, community, makeActor } from "../../fixtures/community.js"
import { join, makeGroup, makeGroupType, readGroup, setMember, uniqueName } from "../../fixtures/groups.js"
import { TestApp } from "../../fixtures/TestApp.js"

const gid = (group: { readonly id: number }) => GroupId.make(group.id)

/** An admin sets a type's policies over HTTP. */
const setPolicies = (admin: Actor, type: { readonly id: GroupTypeId }, payload: GroupTypePoliciesInput) =>
  admin.client.adminGroupTypes.updatePolicies({ path: { id: type.id }, payload }).pipe(expectOk)

/** Active memberships of a group, straight from the database. */
const activeCount = (group: { readonly id: number }) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<
        { n: number }
      >`SELECT count(*)::int AS n FROM group_members WHERE group_id = ${group.id} AND status = 'active'`
  ).pipe(Effect.map((rows) => rows[0]!.n), Effect.orDie)

const newGroup = (client: ApiClient, payload: { type_id: number; visibility?: "public" | "private" }) =>
  client.groups.create({
    payload: {
      name: uniqueName(),
      description: "Policies at work",
      visibility: payload.visibility ?? "public",
      ...payload
    }
  })

layer(TestApp(), { excludeTestServices: true, timeout: "120 seconds" })("group type policies", (it) => {
  describe("who_can_create", () => {
    it.effect(
      "admins: a member's or a broker's group of the type → 403 FORBIDDEN on type_id, nothing made; an " +
        "admin's → 201; moving a group to the type is refused the same way; members again once the policy says so",
      () =>
        Effect.gen(function*() {
          const c = yield* community({ signIn: "token" })
          const broker = yield* makeActor(c.tenant, { role: "broker" }, "token")
          const open = yield* makeGroupType(c.tenant, uniqueName("Open"))
          const official = yield* makeGroupType(c.tenant, uniqueName("Official"), "", { who_can_create: "admins" })

          for (const who of [c.member, broker]) {
            const refused = yield* newGroup(who.client, { type_id: official.id }).pipe(expectError(403, "FORBIDDEN"))
            assert.deepStrictEqual(refused.fields, ["type_id"])
          }
          const listed = yield* c.admin.client.groups.list({ urlParams: { type_id: official.id } }).pipe(expectOk)
          assert.deepStrictEqual(listed.data, [])
          const byAdmin = yield* newGroup(c.admin.client, { type_id: official.id }).pipe(expectOk)
          assert.strictEqual(byAdmin.data.type?.id, official.id)

          // A member's group of an open type may not move to the admins' type; an admin may move it.
          const mine = yield* makeGroup(c.member, { type_id: open.id })
          const moved = yield* c.member.client.groups.update({
            path: { id: mine.id },
            payload: { type_id: official.id }
          })
            .pipe(expectError(403, "FORBIDDEN"))
          assert.deepStrictEqual(moved.fields, ["type_id"])
          assert.strictEqual((yield* readGroup(c.member, mine)).type_id, open.id)
          const byAdminMove = yield* c.admin.client.groups.update({
            path: { id: mine.id },
            payload: { type_id: official.id }
          }).pipe(expectOk)
          assert.strictEqual(byAdminMove.data.type_id, official.id)
          // Its owner still edits it otherwise, and may take it out of the type.
          const renamed = yield* c.member.client.groups.update({ path: { id: mine.id }, payload: { name: "Renamed" } })
            .pipe(expectOk)
          assert.strictEqual(renamed.data.name, "Renamed")
          const out = yield* c.member.client.groups.update({ path: { id: mine.id }, payload: { type_id: null } })
            .pipe(expectOk)
          assert.isNull(out.data.type_id)

          yield* setPolicies(c.admin, official, { who_can_create: "members" })
          const now = yield* newGroup(c.member.client, { type_id: official.id }).pipe(expectOk)
          assert.strictEqual(now.data.type_id, official.id)
        })
    )
  })

  describe("join", () => {
    it.effect(
      "approval: joining a public group waits as pending until an organiser approves; open: active at once; " +
        "private groups wait either way",
      () =>
        Effect.gen(function*() {
          const c = yield* community({ signIn: "token", members: 1 })
          const vetted = yield* makeGroupType(c.tenant, uniqueName("Vetted"), "", { join: "approval" })
          const open = yield* makeGroupType(c.tenant, uniqueName("Open"))
          const group = yield* makeGroup(c.member, { type_id: vetted.id })

          const pending = yield* c.other.client.groupMembers.join({ path: { id: group.id }, withResponse: true })
            .pipe(expectStatus(201))
          assert.strictEqual(pending.data.status, "pending")
          assert.strictEqual((yield* readGroup(c.other, group)).member_count, 1)
          // The chatroom is for active members: not yet.
          yield* c.other.client.groupChat.list({ path: { id: group.id }, urlParams: {} }).pipe(
            expectError(403, "FORBIDDEN")
          )
          const approved = yield* setMember(c.member, group, c.other, { status: "active" })
          assert.strictEqual(approved.status, "active")
          assert.strictEqual((yield* readGroup(c.other, group)).member_count, 2)

          // The same public group under an open type: the next member is active at once.
          yield* c.member.client.groups.update({ path: { id: group.id }, payload: { type_id: open.id } }).pipe(expectOk)
          const active = yield* join(c.members[0]!, group)
          assert.strictEqual(active.status, "active")

          // A private group of an open type: pending all the same (decisions D14).
          const secret = yield* makeGroup(c.member, { type_id: open.id, visibility: "private" })
          assert.strictEqual((yield* join(c.other, secret)).status, "pending")

          // The policy changes: the next join waits.
          const later = yield* makeGroup(c.member, { type_id: open.id })
          yield* setPolicies(c.admin, open, { join: "approval" })
          assert.strictEqual((yield* join(c.other, later)).status, "pending")
        })
    )
  })

  describe("max_members", () => {
    it.effect(
      "a full group → 409 GROUP_FULL on join and on approval; a seat freed or a higher limit lets the next " +
        "in; pending requests may wait while it is full",
      () =>
        Effect.gen(function*() {
          const c = yield* community({ signIn: "token", members: 2 })
          const [third, fourth] = c.members as [Actor, Actor]
          const small = yield* makeGroupType(c.tenant, uniqueName("Small"), "", { max_members: 2 })
          const group = yield* makeGroup(c.member, { type_id: small.id })
          assert.strictEqual((yield* join(c.other, group)).status, "active")

          const full = yield* third.client.groupMembers.join({ path: { id: group.id } }).pipe(
            expectError(409, "GROUP_FULL")
          )
          assert.match(full.message, /2 active members/)
          // Admins count against the limit too.
          yield* c.admin.client.groupMembers.join({ path: { id: group.id } }).pipe(expectError(409, "GROUP_FULL"))
          assert.strictEqual((yield* readGroup(c.member, group)).member_count, 2)
          assert.isNull((yield* readGroup(third, group)).membership)

          // Under an approval policy a request may wait while the group is full; approving it is refused.
          yield* setPolicies(c.admin, small, { join: "approval" })
          assert.strictEqual((yield* join(third, group)).status, "pending")
          yield* c.member.client.groupMembers.update({
            path: { id: gid(group), userId: UserId.make(third.id) },
            payload: { status: "active" }
          }).pipe(expectError(409, "GROUP_FULL"))
          // Nor may the pending member be made the owner (that would make them active).
          yield* c.member.client.groupMembers.update({
            path: { id: gid(group), userId: UserId.make(third.id) },
            payload: { role: "owner", status: "active" }
          }).pipe(expectError(409, "GROUP_FULL"))
          // Nor through the admin catalogue's hand-over (PUT /admin/groups/{id} owner_id).
          yield* c.admin.client.adminGroups.update({
            path: { id: gid(group) },
            payload: { owner_id: UserId.make(third.id) }
          }).pipe(expectError(409, "GROUP_FULL"))
          assert.strictEqual((yield* readGroup(third, group)).membership?.status, "pending")
          assert.strictEqual((yield* readGroup(c.member, group)).owner.id, c.member.id)

          // A member leaves: the pending one is approved into the seat.
          yield* c.other.client.groupMembers.leave({ path: { id: group.id } }).pipe(expectOk)
          assert.strictEqual((yield* setMember(c.member, group, third, { status: "active" })).status, "active")
          assert.strictEqual(yield* activeCount(group), 2)

          // A higher limit: one more; none at all: anyone.
          yield* setPolicies(c.admin, small, { max_members: 3, join: "open" })
          assert.strictEqual((yield* join(fourth, group)).status, "active")
          yield* c.other.client.groupMembers.join({ path: { id: group.id } }).pipe(expectError(409, "GROUP_FULL"))
          yield* setPolicies(c.admin, small, { max_members: null })
          assert.strictEqual((yield* join(c.other, group)).status, "active")
          assert.strictEqual((yield* readGroup(c.member, group)).member_count, 4)

          // A lower limit keeps the members there, and takes nobody new.
          yield* setPolicies(c.admin, small, { max_members: 1 })
          assert.strictEqual((yield* readGroup(c.member, group)).member_count, 4)
          yield* c.admin.client.groupMembers.join({ path: { id: group.id } }).pipe(expectError(409, "GROUP_FULL"))
        })
    )

    it.effect("eight members racing for the last seat: exactly one gets it, the others 409 GROUP_FULL", () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token", members: 8 })
        const pair = yield* makeGroupType(c.tenant, uniqueName("Pair"), "", { max_members: 2 })
        const group = yield* makeGroup(c.member, { type_id: pair.id })
        const outcomes = yield* Effect.all(
          c.members.map((who) => Effect.either(who.client.groupMembers.join({ path: { id: group.id } }))),
          { concurrency: "unbounded" }
        )
        const joined = outcomes.filter(Either.isRight)
        assert.strictEqual(joined.length, 1)
        assert.strictEqual(joined[0]!.right.data.status, "active")
        const refused = outcomes.filter(Either.isLeft).map((o) => (o.left as { _tag: string })._tag)
        assert.deepStrictEqual(refused, Array(7).fill("GroupFull"))
        assert.strictEqual(yield* activeCount(group), 2)
        assert.strictEqual((yield* readGroup(c.member, group)).member_count, 2)
      }))

    it.effect("approvals racing for the last seat: exactly one is approved", () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token", members: 5 })
        const pair = yield* makeGroupType(c.tenant, uniqueName("Pair"), "", { max_members: 2, join: "approval" })
        const group: Group = yield* makeGroup(c.member, { type_id: pair.id })
        for (const who of c.members) assert.strictEqual((yield* join(who, group)).status, "pending")
        const outcomes = yield* Effect.all(
          c.members.map((who) =>
            Effect.either(c.member.client.groupMembers.update({
              path: { id: gid(group), userId: UserId.make(who.id) },
              payload: { status: "active" }
            }))
          ),
          { concurrency: "unbounded" }
        )
        assert.strictEqual(outcomes.filter(Either.isRight).length, 1)
        assert.deepStrictEqual(
          outcomes.filter(Either.isLeft).map((o) => (o.left as { _tag: string })._tag),
          Array(4).fill("GroupFull")
        )
        assert.strictEqual(yield* activeCount(group), 2)
      }))
  })

  describe("chatroom", () => {
    it.effect(
      "chatroom off: reading and writing → 403 CHATROOM_DISABLED for members and admins; on again: it works; " +
        "groups without a type keep theirs",
      () =>
        Effect.gen(function*() {
          const c = yield* community({ signIn: "token" })
          const quiet = yield* makeGroupType(c.tenant, uniqueName("Quiet"), "", { chatroom: false })
          const group = yield* makeGroup(c.member, { type_id: quiet.id })
          yield* join(c.other, group)
          for (const who of [c.member, c.other, c.admin]) {
            yield* who.client.groupChat.list({ path: { id: group.id }, urlParams: {} }).pipe(
              expectError(403, "CHATROOM_DISABLED")
            )
          }
          for (const who of [c.member, c.other]) {
            const refused = yield* who.client.groupChat.post({ path: { id: group.id }, payload: { body: "Hello?" } })
              .pipe(expectError(403, "CHATROOM_DISABLED"))
            assert.match(refused.message, /no chatroom/)
          }

          yield* setPolicies(c.admin, quiet, { chatroom: true })
          const sent = yield* c.other.client.groupChat.post({ path: { id: group.id }, payload: { body: "Hello!" } })
            .pipe(expectOk)
          assert.strictEqual(sent.data.body, "Hello!")
          const read = yield* c.member.client.groupChat.list({ path: { id: group.id }, urlParams: {} }).pipe(expectOk)
          assert.deepStrictEqual(read.data.map((m) => m.body), ["Hello!"])

          const plain = yield* makeGroup(c.member)
          yield* c.member.client.groupChat.post({ path: { id: plain.id }, payload: { body: "Untyped" } }).pipe(expectOk)
        })
    )
  })
})
