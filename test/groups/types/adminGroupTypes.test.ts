import { assert, describe, layer } from "@effect/vitest"
import type { AdminGroupType, CreateGroupType } from "@timebank/domain"
import { Effect } from "effect"
import { codeOf, dataOf, fieldsOf } from "../../fixtures/bodies.js"
import { type ApiClient, apiClient, asJson, expectError, expectOk, expectStatus } from "../../fixtures/client.js"
import { community, makeActor } from "../../fixtures/community.js"
import { rawCall } from "../../fixtures/events.js"
import { makeGroup, readGroup, setGroupStatus, uniqueName } from "../../fixtures/groups.js"
import { TestApp } from "../../fixtures/TestApp.js"
import { authHeaders, makeSuperAdmin } from "../../fixtures/users.js"

const TYPES = "/api/v2/admin/groups/types"

const create = (client: ApiClient, payload: CreateGroupType) =>
  client.adminGroupTypes.create({ payload, withResponse: true }).pipe(expectStatus(201))

const adminList = (client: ApiClient, urlParams: { page?: number; per_page?: number } = {}) =>
  client.adminGroupTypes.list({ urlParams }).pipe(expectOk)

const DEFAULTS = { who_can_create: "members", join: "open", max_members: null, chatroom: true }

layer(TestApp(), { excludeTestServices: true, timeout: "120 seconds" })("admin group types", (it) => {
  describe("list and create", () => {
    it.effect(
      "POST → 201 with default or given policies; the list counts each type's live groups, by name, paged; " +
        "members read the types with their policies",
      () =>
        Effect.gen(function*() {
          const c = yield* community({ signIn: "token" })
          const elsewhere = yield* community({ signIn: "token" })
          yield* create(elsewhere.admin.client, { name: "Arts" })

          // Raw: untrimmed text, and the exact body on the wire.
          const res = yield* rawCall("POST", TYPES, c.adminHeaders, { name: "  Sports  ", description: " Games " })
          assert.strictEqual(res.status, 201, res.text)
          const sports = dataOf<{ id: number; created_at: string; updated_at: string }>(res.body)
          assert.deepStrictEqual(res.body, {
            data: {
              id: sports.id,
              name: "Sports",
              description: "Games",
              policies: DEFAULTS,
              created_at: sports.created_at,
              updated_at: sports.updated_at,
              group_count: 0
            },
            meta: {}
          })
          const arts = yield* create(c.admin.client, {
            name: "Arts",
            policies: { join: "approval", max_members: 3, who_can_create: "admins", chatroom: false }
          })
          assert.deepStrictEqual(asJson(arts.data.policies), {
            who_can_create: "admins",
            join: "approval",
            max_members: 3,
            chatroom: false
          })
          assert.strictEqual(arts.data.description, "")
          const choirs = yield* create(c.admin.client, { name: "choirs" })

          // Groups: two of Sports (one then deleted, one rejected: still counted), one of Arts (made by the admin).
          const kept = yield* makeGroup(c.member, { type_id: sports.id })
          const gone = yield* makeGroup(c.member, { type_id: sports.id })
          const rejected = yield* makeGroup(c.other, { type_id: sports.id })
          yield* setGroupStatus(rejected, "rejected")
          yield* c.member.client.groups.delete({ path: { id: gone.id } }).pipe(expectOk)
          yield* makeGroup(c.admin, { type_id: arts.data.id })
          assert.strictEqual(kept.type?.name, "Sports")

          const all = yield* adminList(c.admin.client)
          assert.deepStrictEqual(all.data.map((t) => [t.name, t.group_count]), [["Arts", 1], ["choirs", 0], [
            "Sports",
            2
          ]])
          assert.deepStrictEqual(all.meta, { current_page: 1, per_page: 20, total: 3, total_pages: 1, has_more: false })
          const second = yield* adminList(c.admin.client, { page: 2, per_page: 2 })
          assert.deepStrictEqual(second.data.map((t) => t.id), [sports.id])
          assert.deepStrictEqual(second.meta, {
            current_page: 2,
            per_page: 2,
            total: 3,
            total_pages: 2,
            has_more: false
          })
          const first = yield* adminList(c.admin.client, { page: 1, per_page: 2 })
          assert.deepStrictEqual(first.data.map((t) => t.id), [arts.data.id, choirs.data.id])
          assert.isTrue(first.meta.has_more)
          // Past the end: no rows, the total still right.
          const past = yield* adminList(c.admin.client, { page: 9, per_page: 2 })
          assert.deepStrictEqual(past.data, [])
          assert.strictEqual(past.meta.total, 3)

          // Members read the same types with their policies; another community's types are not among them.
          const member = yield* c.member.client.groups.types().pipe(expectOk)
          assert.deepStrictEqual(
            member.data.map((t) => [t.name, asJson(t.policies)]),
            [["Arts", asJson(arts.data.policies)], ["choirs", DEFAULTS], ["Sports", DEFAULTS]]
          )
          assert.deepStrictEqual((yield* adminList(elsewhere.admin.client)).data.map((t) => t.name), ["Arts"])
        })
    )

    it.effect(
      "a name the community has, in any case → 409 ALREADY_EXISTS on name; bad bodies → 422 with the field",
      () =>
        Effect.gen(function*() {
          const c = yield* community({ signIn: "token" })
          yield* create(c.admin.client, { name: "Walking" })
          const taken = yield* c.admin.client.adminGroupTypes.create({ payload: { name: "WALKING" } }).pipe(
            expectError(409, "ALREADY_EXISTS")
          )
          assert.deepStrictEqual(taken.fields, ["name"])
          // Another community may have the name.
          const elsewhere = yield* community({ signIn: "token" })
          yield* create(elsewhere.admin.client, { name: "Walking" })

          // Raw: bodies the typed client cannot send.
          const cases: Array<[unknown, string]> = [
            [{}, "name"],
            [{ name: "   " }, "name"],
            [{ name: "x".repeat(101) }, "name"],
            [{ name: 7 }, "name"],
            [{ name: "Ok", description: "d".repeat(1001) }, "description"],
            [{ name: "Ok", policies: { max_members: 0 } }, "policies.max_members"],
            [{ name: "Ok", policies: { max_members: 2.5 } }, "policies.max_members"],
            [{ name: "Ok", policies: { join: "sometimes" } }, "policies.join"],
            [{ name: "Ok", policies: { who_can_create: "everyone" } }, "policies.who_can_create"],
            [{ name: "Ok", policies: { chatroom: "yes" } }, "policies.chatroom"],
            [{ name: "Ok", policies: { colour: "red" } }, "policies.colour"],
            [{ name: "Ok", colour: "red" }, "colour"]
          ]
          for (const [body, field] of cases) {
            const res = yield* rawCall("POST", TYPES, c.adminHeaders, body)
            assert.strictEqual(res.status, 422, `${JSON.stringify(body)}: ${res.text}`)
            assert.strictEqual(codeOf(res.body), "VALIDATION_ERROR")
            assert.include(fieldsOf(res.body), field, JSON.stringify(body))
          }
          assert.deepStrictEqual((yield* adminList(c.admin.client)).data.map((t) => t.name), ["Walking"])
        })
    )
  })

  describe("update and delete", () => {
    it.effect(
      "PUT renames and describes; groups show the new name; a taken name → 409; its own name in another " +
        "case is fine; bad bodies → 422",
      () =>
        Effect.gen(function*() {
          const c = yield* community({ signIn: "token" })
          const sports = (yield* create(c.admin.client, { name: "Sports", description: "Games" })).data
          yield* create(c.admin.client, { name: "Arts" })
          const group = yield* makeGroup(c.member, { type_id: sports.id })

          const renamed = yield* c.admin.client.adminGroupTypes.update({
            path: { id: sports.id },
            payload: { name: "Team sports" }
          }).pipe(expectOk)
          assert.deepInclude(asJson(renamed.data), { name: "Team sports", description: "Games", group_count: 1 })
          assert.deepStrictEqual((yield* readGroup(c.other, group)).type, { id: sports.id, name: "Team sports" })
          const described = yield* c.admin.client.adminGroupTypes.update({
            path: { id: sports.id },
            payload: { description: "" }
          }).pipe(expectOk)
          assert.deepInclude(asJson(described.data), { name: "Team sports", description: "" })
          const members = yield* c.member.client.groups.types().pipe(expectOk)
          assert.deepStrictEqual(members.data.map((t) => [t.name, t.description]), [["Arts", ""], ["Team sports", ""]])

          const taken = yield* c.admin.client.adminGroupTypes.update({
            path: { id: sports.id },
            payload: { name: "ARTS" }
          }).pipe(expectError(409, "ALREADY_EXISTS"))
          assert.deepStrictEqual(taken.fields, ["name"])
          const recased = yield* c.admin.client.adminGroupTypes.update({
            path: { id: sports.id },
            payload: { name: "TEAM SPORTS" }
          }).pipe(expectOk)
          assert.strictEqual(recased.data.name, "TEAM SPORTS")

          for (
            const [body, field] of [[{ name: "" }, "name"], [{ description: 3 }, "description"], [
              { id: 3 },
              "id"
            ]] as Array<
              [unknown, string]
            >
          ) {
            const res = yield* rawCall("PUT", `${TYPES}/${sports.id}`, c.adminHeaders, body)
            assert.strictEqual(res.status, 422, res.text)
            assert.include(fieldsOf(res.body), field)
          }
        })
    )

    it.effect(
      "DELETE → {id, deleted}; while a live group (any status) has the type → 409 IN_USE; deleted groups " +
        "do not hold it; gone from the member list; again → 404",
      () =>
        Effect.gen(function*() {
          const c = yield* community({ signIn: "token" })
          const type = (yield* create(c.admin.client, { name: uniqueName("Hobby") })).data
          const unused = (yield* create(c.admin.client, { name: uniqueName("Spare") })).data
          const group = yield* makeGroup(c.member, { type_id: type.id })
          yield* setGroupStatus(group, "archived")

          const inUse = yield* c.admin.client.adminGroupTypes.delete({ path: { id: type.id } }).pipe(
            expectError(409, "IN_USE")
          )
          assert.match(inUse.message, /Groups have this type/)
          assert.strictEqual((yield* readGroup(c.member, group)).type_id, type.id)

          // Raw: the exact envelope of a delete.
          const res = yield* rawCall("DELETE", `${TYPES}/${unused.id}`, c.adminHeaders)
          assert.strictEqual(res.status, 200, res.text)
          assert.deepStrictEqual(res.body, { data: { id: unused.id, deleted: true }, meta: {} })

          // The group is deleted: the type is free.
          yield* c.member.client.groups.delete({ path: { id: group.id } }).pipe(expectOk)
          const deleted = yield* c.admin.client.adminGroupTypes.delete({ path: { id: type.id } }).pipe(expectOk)
          assert.deepStrictEqual(asJson(deleted.data), { id: type.id, deleted: true })
          assert.deepStrictEqual((yield* c.member.client.groups.types().pipe(expectOk)).data, [])
          assert.deepStrictEqual((yield* adminList(c.admin.client)).meta.total, 0)
          yield* c.admin.client.adminGroupTypes.delete({ path: { id: type.id } }).pipe(expectError(404, "NOT_FOUND"))
          yield* c.admin.client.adminGroupTypes.policies({ path: { id: type.id } }).pipe(expectError(404, "NOT_FOUND"))
          // A new group may not take the deleted type.
          const failure = yield* c.member.client.groups.create({
            payload: { name: "Late", description: "Too late", visibility: "public", type_id: type.id }
          }).pipe(expectError(422, "VALIDATION_ERROR"))
          assert.deepStrictEqual(failure.fields, ["type_id"])
        })
    )
  })

  describe("policies", () => {
    it.effect(
      "GET gives the defaults; PUT is partial; the member list and the admin list show the result; bad " +
        "bodies → 422 with the field",
      () =>
        Effect.gen(function*() {
          const c = yield* community({ signIn: "token" })
          const type = (yield* create(c.admin.client, { name: uniqueName("Club") })).data
          const path = { id: type.id }
          assert.deepStrictEqual(
            asJson((yield* c.admin.client.adminGroupTypes.policies({ path }).pipe(expectOk)).data),
            DEFAULTS
          )
          const capped = yield* c.admin.client.adminGroupTypes.updatePolicies({ path, payload: { max_members: 10 } })
            .pipe(expectOk)
          assert.deepStrictEqual(asJson(capped.data), { ...DEFAULTS, max_members: 10 })
          const closed = yield* c.admin.client.adminGroupTypes.updatePolicies({
            path,
            payload: { join: "approval", chatroom: false, who_can_create: "admins" }
          }).pipe(expectOk)
          const expected = { who_can_create: "admins", join: "approval", max_members: 10, chatroom: false }
          assert.deepStrictEqual(asJson(closed.data), expected)
          assert.deepStrictEqual(
            asJson((yield* c.admin.client.adminGroupTypes.policies({ path }).pipe(expectOk)).data),
            expected
          )
          assert.deepStrictEqual(
            asJson((yield* c.member.client.groups.types().pipe(expectOk)).data[0]!.policies),
            expected
          )
          assert.deepStrictEqual(asJson((yield* adminList(c.admin.client)).data[0]!.policies), expected)

          const unlimited = yield* c.admin.client.adminGroupTypes.updatePolicies({
            path,
            payload: { max_members: null }
          })
            .pipe(expectOk)
          assert.deepStrictEqual(asJson(unlimited.data), { ...expected, max_members: null })
          // Nothing to change: the same policies.
          const same = yield* c.admin.client.adminGroupTypes.updatePolicies({ path, payload: {} }).pipe(expectOk)
          assert.deepStrictEqual(asJson(same.data), { ...expected, max_members: null })

          const cases: Array<[unknown, string]> = [
            [{ max_members: 0 }, "max_members"],
            [{ max_members: -4 }, "max_members"],
            [{ max_members: 1.5 }, "max_members"],
            [{ max_members: 1_000_001 }, "max_members"],
            [{ max_members: "5" }, "max_members"],
            [{ join: "invite" }, "join"],
            [{ who_can_create: "brokers" }, "who_can_create"],
            [{ chatroom: null }, "chatroom"],
            [{ join_policy: "open" }, "join_policy"]
          ]
          for (const [body, field] of cases) {
            const res = yield* rawCall("PUT", `${TYPES}/${type.id}/policies`, c.adminHeaders, body)
            assert.strictEqual(res.status, 422, `${JSON.stringify(body)}: ${res.text}`)
            assert.include(fieldsOf(res.body), field, JSON.stringify(body))
          }
          assert.deepStrictEqual(
            asJson((yield* c.admin.client.adminGroupTypes.policies({ path }).pipe(expectOk)).data),
            { ...expected, max_members: null }
          )
        })
    )
  })

  describe("who may", () => {
    it.effect(
      "401 without a session; 403 for members, brokers and coordinators on every route; a platform " +
        "super-admin naming the community may",
      () =>
        Effect.gen(function*() {
          const c = yield* community({ signIn: "token" })
          const type = (yield* create(c.admin.client, { name: uniqueName("Guarded") })).data
          const path = { id: type.id }
          const broker = yield* makeActor(c.tenant, { role: "broker" }, "token")
          const coordinator = yield* makeActor(c.tenant, { role: "coordinator" }, "token")
          const calls = (client: ApiClient): Array<Effect.Effect<unknown, unknown>> => [
            client.adminGroupTypes.list({ urlParams: {} }),
            client.adminGroupTypes.create({ payload: { name: uniqueName("Refused") } }),
            client.adminGroupTypes.update({ path, payload: { name: uniqueName("Refused") } }),
            client.adminGroupTypes.delete({ path }),
            client.adminGroupTypes.policies({ path }),
            client.adminGroupTypes.updatePolicies({ path, payload: { chatroom: false } })
          ]
          for (const call of calls(c.visitor.client)) yield* expectError(401, "AUTH_REQUIRED")(call)
          for (const who of [c.member, broker, coordinator]) {
            for (const call of calls(who.client)) yield* expectError(403, "FORBIDDEN")(call)
          }
          // Nothing changed.
          const list = yield* adminList(c.admin.client)
          assert.deepStrictEqual(list.data.map((t) => [t.id, t.name, t.policies.chatroom]), [[
            type.id,
            type.name,
            true
          ]])

          const visiting = yield* apiClient(yield* authHeaders(yield* makeSuperAdmin(), c.tenant))
          const made = (yield* create(visiting, { name: uniqueName("By super") })).data
          assert.strictEqual(made.group_count, 0)
          yield* visiting.adminGroupTypes.updatePolicies({ path: { id: made.id }, payload: { join: "approval" } }).pipe(
            expectOk
          )
          assert.strictEqual((yield* adminList(c.admin.client)).meta.total, 2)
        })
    )

    it.effect("another community's type is 404 on every {id} route and stays as it was; a non-numeric id → 404", () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token" })
        const elsewhere = yield* community({ signIn: "token" })
        const theirs = (yield* create(elsewhere.admin.client, { name: "Theirs" })).data
        const path = { id: theirs.id }
        const calls: Array<Effect.Effect<unknown, unknown>> = [
          c.admin.client.adminGroupTypes.update({ path, payload: { name: "Mine now" } }),
          c.admin.client.adminGroupTypes.delete({ path }),
          c.admin.client.adminGroupTypes.policies({ path }),
          c.admin.client.adminGroupTypes.updatePolicies({ path, payload: { chatroom: false } })
        ]
        for (const call of calls) yield* expectError(404, "NOT_FOUND")(call)
        const still = (yield* adminList(elsewhere.admin.client)).data
        assert.deepStrictEqual(still.map((t: AdminGroupType) => [t.name, t.policies.chatroom]), [["Theirs", true]])
        // Raw: ids the typed client cannot send.
        for (const id of ["abc", "0", "-1", "1.5"]) {
          const res = yield* rawCall("GET", `${TYPES}/${id}/policies`, c.adminHeaders)
          assert.strictEqual(res.status, 404, `${id}: ${res.text}`)
        }
      }))
  })

  it.effect("the static path wins over /admin/groups/{id}; writes are audited as group_types.*", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      // Raw: the route as written, beside the groups admin's `/admin/groups/{id}`.
      const listed = yield* rawCall("GET", TYPES, c.adminHeaders)
      assert.strictEqual(listed.status, 200, listed.text)
      assert.deepStrictEqual(listed.body, {
        data: [],
        meta: { current_page: 1, per_page: 20, total: 0, total_pages: 1, has_more: false }
      })
      const type = (yield* create(c.admin.client, { name: uniqueName("Audited") })).data
      yield* c.admin.client.adminGroupTypes.update({ path: { id: type.id }, payload: { description: "Seen" } })
      yield* c.admin.client.adminGroupTypes.updatePolicies({ path: { id: type.id }, payload: { max_members: 4 } })
      yield* c.admin.client.adminGroupTypes.delete({ path: { id: type.id } })
      for (
        const action of [
          "group-types.created",
          "group-types.updated",
          "group-types.policies.updated",
          "group-types.deleted"
        ]
      ) {
        const log = yield* c.admin.client.adminActivity.log({ urlParams: { action } }).pipe(expectOk)
        assert.strictEqual(log.data.length, 1, action)
        assert.deepInclude(asJson(log.data[0]!), { action, target_id: String(type.id) })
      }
    }))
})
