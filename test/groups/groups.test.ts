import { assert, describe, layer } from "@effect/vitest"
import { type Group, GroupId, RecordId } from "@timebank/domain"
import { Effect } from "effect"
import { codeOf, dataOf, sortedFieldsOf as fieldsOf } from "../fixtures/bodies.js"
import {
  type ApiClient,
  apiClient,
  asJson,
  expectError,
  expectOk,
  expectStatus,
  pageCursor
} from "../fixtures/client.js"
import { community } from "../fixtures/community.js"
import { outboxOf, rawCall } from "../fixtures/events.js"
import { join, makeGroup, makeGroupType, readGroup, setMember, uniqueName } from "../fixtures/groups.js"
import { TestApp } from "../fixtures/TestApp.js"
import { authHeaders, makeSuperAdmin } from "../fixtures/users.js"

const GROUPS = "/api/v2/groups"

/** Every page of the list for `client`, following the cursor; answers the ids in order. */
const walk = (client: ApiClient, params: { search?: string; type_id?: number } = {}, perPage = 2) =>
  Effect.gen(function*() {
    const ids: Array<number> = []
    let cursor: string | undefined
    for (let page = 0; page < 50; page++) {
      const res = yield* client.groups.list({
        urlParams: {
          ...params,
          per_page: perPage,
          ...(cursor === undefined ? {} : { cursor: pageCursor(RecordId, cursor) })
        }
      }).pipe(expectOk)
      ids.push(...res.data.map((g) => g.id))
      assert.strictEqual(res.meta.per_page, perPage)
      assert.strictEqual(res.meta.has_more, res.meta.cursor !== undefined)
      if (res.meta.cursor === undefined) break
      cursor = res.meta.cursor
    }
    return ids
  })

layer(TestApp(), { excludeTestServices: true, timeout: "120 seconds" })("groups", (it) => {
  describe("create", () => {
    it.effect("POST → 201 active group owned by the caller (member_count 1); GroupCreated; GET and the list read it back", () =>
      Effect.gen(function*() {
        const { member, other, tenant } = yield* community()
        // Raw: untrimmed text the client does not send, and the exact body on the wire.
        const res = yield* rawCall("POST", GROUPS, member.headers, {
          name: "  Repair café  ",
          description: " We fix things. ",
          visibility: "public",
          location: "  "
        })
        assert.strictEqual(res.status, 201, res.text)
        const group = dataOf<{ id: number; created_at: string; updated_at: string }>(res.body)
        assert.deepStrictEqual(res.body, {
          data: {
            id: group.id,
            name: "Repair café",
            description: "We fix things.",
            type_id: null,
            type: null,
            visibility: "public",
            location: null,
            latitude: null,
            longitude: null,
            status: "active",
            owner: { id: member.id, first_name: "Mia", last_name: "Member", avatar_url: null },
            member_count: 1,
            membership: { role: "owner", status: "active" },
            created_at: group.created_at,
            updated_at: group.updated_at
          },
          meta: {}
        })
        assert.match(group.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/)
        assert.deepStrictEqual(yield* outboxOf(tenant, "GroupCreated"), [{
          group_id: group.id,
          user_id: member.id,
          group: {
            name: "Repair café",
            description: "We fix things.",
            visibility: "public",
            status: "active",
            type_id: null,
            location: null,
            owner_id: member.id
          }
        }])

        // Another member reads it, without a membership; the list shows it too.
        const seen = yield* readGroup(other, group)
        assert.strictEqual(seen.name, "Repair café")
        assert.strictEqual(seen.member_count, 1)
        assert.isNull(seen.membership)
        const listed = yield* other.client.groups.list({ urlParams: {} }).pipe(expectOk)
        assert.deepStrictEqual(listed.data.map((g) => g.id), [group.id])
        assert.deepStrictEqual(asJson(listed.data[0]), asJson(seen))
      }))

    it.effect("a private group with a type and a location; a type of another community or none → 422 type_id", () =>
      Effect.gen(function*() {
        const { member, tenant } = yield* community()
        const type = yield* makeGroupType(tenant, uniqueName("Hobbies"))
        const group = yield* makeGroup(member, { visibility: "private", type_id: type.id, location: "Leeds" })
        assert.deepInclude(asJson(group), {
          visibility: "private",
          type_id: type.id,
          type: { id: type.id, name: type.name },
          location: "Leeds"
        })

        const elsewhere = yield* community()
        const foreign = yield* makeGroupType(elsewhere.tenant)
        for (const typeId of [foreign.id, 999999999]) {
          const failure = yield* member.client.groups.create({
            payload: { name: "Knitters", description: "Yarn", visibility: "public", type_id: typeId }
          }).pipe(expectError(422, "VALIDATION_ERROR"))
          assert.deepStrictEqual(failure.fields, ["type_id"])
        }
        assert.strictEqual((yield* outboxOf(tenant, "GroupCreated")).length, 1)
      }))

    it.effect("bad input → 422 naming every bad field; lengths count code points; nothing is written", () =>
      Effect.gen(function*() {
        const { member, tenant } = yield* community()
        const ok = { name: "Walkers", description: "Walks", visibility: "public" }
        const cases: Array<[unknown, Array<string>]> = [
          [{ ...ok, name: "   " }, ["name"]],
          [{ ...ok, name: "n".repeat(121) }, ["name"]],
          [{ ...ok, description: "" }, ["description"]],
          [{ ...ok, description: "d".repeat(5001) }, ["description"]],
          [{ ...ok, visibility: "secret" }, ["visibility"]],
          [{ ...ok, location: "l".repeat(256) }, ["location"]],
          [{ ...ok, type_id: 0 }, ["type_id"]],
          [{ name: "Walkers" }, ["description", "visibility"]],
          [{ ...ok, name: 7, visibility: null }, ["name", "visibility"]]
        ]
        // Raw: bodies the client's schemas would refuse to send.
        for (const [body, fields] of cases) {
          const res = yield* rawCall("POST", GROUPS, member.headers, body)
          assert.strictEqual(res.status, 422, `${JSON.stringify(body)}: ${res.text}`)
          assert.strictEqual(codeOf(res.body), "VALIDATION_ERROR")
          assert.deepStrictEqual(fieldsOf(res.body), fields, JSON.stringify(body))
        }
        assert.deepStrictEqual(yield* outboxOf(tenant, "GroupCreated"), [])
        // 120 emoji are 240 UTF-16 units but 120 code points: the limit, not beyond it.
        const emoji = yield* makeGroup(member, { name: "🌳".repeat(120), description: "🌱".repeat(5000) })
        assert.strictEqual([...emoji.name].length, 120)
      }))

    it.effect("anonymous → 401; a visiting super-admin → 403; groups off → 403 FEATURE_DISABLED", () =>
      Effect.gen(function*() {
        const { tenant, visitor } = yield* community()
        const payload = { name: "Choir", description: "We sing", visibility: "public" as const }
        yield* visitor.client.groups.create({ payload }).pipe(expectError(401, "AUTH_REQUIRED"))
        const visiting = yield* apiClient(yield* authHeaders(yield* makeSuperAdmin(), tenant))
        yield* visiting.groups.create({ payload }).pipe(expectError(403, "FORBIDDEN"))
        const off = yield* community({ features: { groups: false } })
        yield* off.member.client.groups.create({ payload }).pipe(expectError(403, "FEATURE_DISABLED"))
        yield* off.member.client.groups.list({ urlParams: {} }).pipe(expectError(403, "FEATURE_DISABLED"))
        assert.deepStrictEqual(yield* outboxOf(tenant, "GroupCreated"), [])
        assert.deepStrictEqual(yield* outboxOf(off.tenant, "GroupCreated"), [])
      }))

    it.effect("with group_approval_required a member's group waits in pending_review, seen only by them and admins", () =>
      Effect.gen(function*() {
        const { admin, member, other } = yield* community({ settings: { group_approval_required: true } })
        const pending = yield* makeGroup(member)
        assert.strictEqual(pending.status, "pending_review")
        // Admins review groups; their own need no review.
        const adminsOwn = yield* makeGroup(admin)
        assert.strictEqual(adminsOwn.status, "active")

        assert.strictEqual((yield* readGroup(member, pending)).status, "pending_review")
        assert.strictEqual((yield* readGroup(admin, pending)).status, "pending_review")
        yield* other.client.groups.get({ path: { id: pending.id } }).pipe(expectError(404, "NOT_FOUND"))
        yield* other.client.groupMembers.join({ path: { id: pending.id } }).pipe(expectError(404, "NOT_FOUND"))
        assert.deepStrictEqual(yield* walk(other.client), [adminsOwn.id])
        assert.deepStrictEqual(yield* walk(member.client), [adminsOwn.id, pending.id])
        assert.deepStrictEqual(yield* walk(admin.client), [adminsOwn.id, pending.id])

        // An admin approves it through the edit: everyone sees it then.
        const approved = yield* admin.client.groups.update({ path: { id: pending.id }, payload: { status: "active" } })
          .pipe(expectOk)
        assert.strictEqual(approved.data.status, "active")
        assert.strictEqual((yield* readGroup(other, pending)).status, "active")
      }))
  })

  describe("list and detail", () => {
    it.effect("newest first in cursor pages; search on name and description; type_id; counts of active members only", () =>
      Effect.gen(function*() {
        const { member, members: [third], other, tenant } = yield* community({ members: 1 })
        const hiking = yield* makeGroupType(tenant, uniqueName("Outdoors"))
        const a = yield* makeGroup(member, { name: "Hill walkers", type_id: hiking.id })
        const b = yield* makeGroup(member, { name: "Chess club", description: "Play 100% for fun_ever" })
        const c = yield* makeGroup(other, { name: "Night hikes", visibility: "private", type_id: hiking.id })
        const d = yield* makeGroup(other, { name: "Book circle" })
        yield* join(third!, a)
        yield* join(third!, c) // pending: not counted
        const elsewhere = yield* community()
        yield* makeGroup(elsewhere.member, { name: "Hill walkers elsewhere" })

        assert.deepStrictEqual(yield* walk(third!.client), [d.id, c.id, b.id, a.id])
        assert.deepStrictEqual(yield* walk(third!.client, {}, 50), [d.id, c.id, b.id, a.id])
        assert.deepStrictEqual(yield* walk(third!.client, { search: "HILL" }), [a.id])
        assert.deepStrictEqual(yield* walk(third!.client, { search: "100%" }), [b.id])
        // `_` is no wildcard: "s_c" would match "Chess club" otherwise.
        assert.deepStrictEqual(yield* walk(third!.client, { search: "s_c" }), [])
        assert.deepStrictEqual(yield* walk(third!.client, { search: "fun_ever" }), [b.id])
        assert.deepStrictEqual(yield* walk(third!.client, { type_id: hiking.id }), [c.id, a.id])

        const page = yield* third!.client.groups.list({ urlParams: {} }).pipe(expectOk)
        const byId = new Map(page.data.map((g): [number, Group] => [g.id, g]))
        assert.strictEqual(byId.get(a.id)!.member_count, 2)
        assert.deepStrictEqual(byId.get(a.id)!.membership, { role: "member", status: "active" })
        assert.strictEqual(byId.get(c.id)!.member_count, 1)
        assert.deepStrictEqual(byId.get(c.id)!.membership, { role: "member", status: "pending" })
        assert.deepStrictEqual(byId.get(c.id)!.type, { id: hiking.id, name: hiking.name })
        assert.isNull(byId.get(d.id)!.membership)
        assert.strictEqual(byId.get(d.id)!.owner.first_name, "Otto")
      }))

    it.effect("GET: other community's or unknown group → 404, bad ids → 404, bad cursor → 422, anonymous → 401", () =>
      Effect.gen(function*() {
        const { member, visitor } = yield* community()
        const group = yield* makeGroup(member, { visibility: "private" })
        yield* visitor.client.groups.get({ path: { id: group.id } }).pipe(expectError(401, "AUTH_REQUIRED"))
        yield* visitor.client.groups.list({ urlParams: {} }).pipe(expectError(401, "AUTH_REQUIRED"))
        const elsewhere = yield* community()
        for (const id of [group.id, GroupId.make(999999999)]) {
          yield* elsewhere.member.client.groups.get({ path: { id } }).pipe(expectError(404, "NOT_FOUND"))
        }
        // Raw: ids and cursors that the client cannot write.
        for (const path of [`${GROUPS}/abc`, `${GROUPS}/0`]) {
          const res = yield* rawCall("GET", path, member.headers)
          assert.strictEqual(res.status, 404, `${path}: ${res.text}`)
          assert.strictEqual(codeOf(res.body), "NOT_FOUND")
        }
        const bad = yield* rawCall("GET", `${GROUPS}?cursor=nope!`, member.headers)
        assert.strictEqual(bad.status, 422, bad.text)
        assert.deepStrictEqual(fieldsOf(bad.body), ["cursor"])
      }))
  })

  describe("update", () => {
    it.effect("the owner edits; GroupUpdated names the changed fields; GET reads the change back", () =>
      Effect.gen(function*() {
        const { member, other, tenant } = yield* community()
        const type = yield* makeGroupType(tenant)
        const group = yield* makeGroup(member, { location: "Leeds" })
        const res = yield* member.client.groups.update({
          path: { id: group.id },
          payload: {
            name: "Menders",
            location: null,
            type_id: type.id,
            visibility: "private",
            description: group.description
          }
        }).pipe(expectOk)
        assert.deepInclude(asJson(res.data), {
          name: "Menders",
          location: null,
          type_id: type.id,
          visibility: "private",
          member_count: 1
        })
        const read = yield* readGroup(other, group)
        assert.deepStrictEqual(asJson(read), { ...(asJson(res.data) as object), membership: null })
        const [event] = yield* outboxOf(tenant, "GroupUpdated")
        assert.deepStrictEqual(event, {
          group_id: group.id,
          fields: ["name", "type_id", "visibility", "location"],
          group: {
            name: "Menders",
            description: group.description,
            visibility: "private",
            status: "active",
            type_id: type.id,
            location: null,
            owner_id: member.id
          },
          updated_by: member.id
        })
        // Nothing changed: no event.
        yield* member.client.groups.update({ path: { id: group.id }, payload: { name: "Menders" } }).pipe(expectOk)
        assert.strictEqual((yield* outboxOf(tenant, "GroupUpdated")).length, 1)
      }))

    it.effect("organisers and admins edit; plain and non-members → 403; another community's → 404; bad input → 422", () =>
      Effect.gen(function*() {
        const { admin, member, members: [organiser, plain], other, visitor } = yield* community({ members: 2 })
        const group = yield* makeGroup(member)
        yield* join(organiser!, group)
        yield* setMember(member, group, organiser!, { role: "organiser" })
        yield* join(plain!, group)

        const byOrganiser = yield* organiser!.client.groups.update({
          path: { id: group.id },
          payload: { name: "By organiser" }
        })
          .pipe(expectOk)
        assert.strictEqual(byOrganiser.data.name, "By organiser")
        const byAdmin = yield* admin.client.groups.update({
          path: { id: group.id },
          payload: { description: "By admin" }
        })
          .pipe(expectOk)
        assert.strictEqual(byAdmin.data.description, "By admin")

        for (const who of [plain!, other]) {
          yield* who.client.groups.update({ path: { id: group.id }, payload: { name: "Mine now" } })
            .pipe(expectError(403, "FORBIDDEN"))
        }
        yield* visitor.client.groups.update({ path: { id: group.id }, payload: { name: "x" } })
          .pipe(expectError(401, "AUTH_REQUIRED"))
        const elsewhere = yield* community()
        yield* elsewhere.admin.client.groups.update({ path: { id: group.id }, payload: { name: "x" } })
          .pipe(expectError(404, "NOT_FOUND"))
        const foreignType = yield* makeGroupType(elsewhere.tenant)
        const failure = yield* member.client.groups.update({
          path: { id: group.id },
          payload: { type_id: foreignType.id }
        })
          .pipe(expectError(422, "VALIDATION_ERROR"))
        assert.deepStrictEqual(failure.fields, ["type_id"])
        // Raw: values the client refuses to send.
        const bad = yield* rawCall("PUT", `${GROUPS}/${group.id}`, member.headers, {
          name: "",
          visibility: "hidden",
          status: "closed"
        })
        assert.strictEqual(bad.status, 422, bad.text)
        assert.deepStrictEqual(fieldsOf(bad.body), ["name", "status", "visibility"])
        assert.strictEqual((yield* readGroup(plain!, group)).name, "By organiser")
      }))

    it.effect("status: admins set any; the owner only archives an active or dormant group; organisers never", () =>
      Effect.gen(function*() {
        const { admin, member, other, tenant } = yield* community()
        const group = yield* makeGroup(member)
        yield* join(other, group)
        yield* setMember(member, group, other, { role: "organiser" })

        yield* other.client.groups.update({ path: { id: group.id }, payload: { status: "archived" } })
          .pipe(expectError(403, "FORBIDDEN"))
        yield* member.client.groups.update({ path: { id: group.id }, payload: { status: "dormant" } })
          .pipe(expectError(403, "FORBIDDEN"))

        const dormant = yield* admin.client.groups.update({ path: { id: group.id }, payload: { status: "dormant" } })
          .pipe(expectOk)
        assert.strictEqual(dormant.data.status, "dormant")
        const archived = yield* member.client.groups.update({ path: { id: group.id }, payload: { status: "archived" } })
          .pipe(expectOk)
        assert.strictEqual(archived.data.status, "archived")
        // Archived stays listed and readable, and only an admin brings it back.
        assert.strictEqual((yield* readGroup(other, group)).status, "archived")
        yield* member.client.groups.update({ path: { id: group.id }, payload: { status: "active" } })
          .pipe(expectError(403, "FORBIDDEN"))
        const statuses = (yield* outboxOf(tenant, "GroupUpdated")).map((
          e
        ) => [e["previous_status"], (e["group"] as { status: string }).status])
        assert.deepStrictEqual(statuses, [["active", "dormant"], ["dormant", "archived"]])

        const review = yield* community({ settings: { group_approval_required: true } })
        const pending = yield* makeGroup(review.member)
        yield* review.member.client.groups.update({ path: { id: pending.id }, payload: { status: "archived" } })
          .pipe(expectError(409, "INVALID_STATE"))
        assert.strictEqual((yield* readGroup(review.admin, pending)).status, "pending_review")
      }))
  })

  describe("delete", () => {
    it.effect("owner, organiser or admin delete → {id, deleted}; gone from GET and list; GroupDeleted", () =>
      Effect.gen(function*() {
        const { admin, member, members: [organiser, plain], other, tenant, visitor } = yield* community({ members: 2 })
        const [first, second, third] = yield* Effect.all([makeGroup(member), makeGroup(member), makeGroup(member)])
        yield* join(organiser!, second!)
        yield* setMember(member, second!, organiser!, { role: "organiser" })
        yield* join(plain!, first!)

        yield* plain!.client.groups.delete({ path: { id: first!.id } }).pipe(expectError(403, "FORBIDDEN"))
        yield* other.client.groups.delete({ path: { id: first!.id } }).pipe(expectError(403, "FORBIDDEN"))
        yield* visitor.client.groups.delete({ path: { id: first!.id } }).pipe(expectError(401, "AUTH_REQUIRED"))
        const elsewhere = yield* community()
        yield* elsewhere.admin.client.groups.delete({ path: { id: first!.id } }).pipe(expectError(404, "NOT_FOUND"))

        const res = yield* member.client.groups.delete({ path: { id: first!.id }, withResponse: true })
          .pipe(expectStatus(200))
        assert.deepStrictEqual(res, { data: { id: first!.id, deleted: true }, meta: {} })
        yield* organiser!.client.groups.delete({ path: { id: second!.id } }).pipe(expectOk)
        yield* admin.client.groups.delete({ path: { id: third!.id } }).pipe(expectOk)

        for (const group of [first!, second!, third!]) {
          yield* other.client.groups.get({ path: { id: group.id } }).pipe(expectError(404, "NOT_FOUND"))
          yield* member.client.groups.delete({ path: { id: group.id } }).pipe(expectError(404, "NOT_FOUND"))
        }
        assert.deepStrictEqual(yield* walk(admin.client), [])
        yield* plain!.client.groupMembers.leave({ path: { id: first!.id } }).pipe(expectError(404, "NOT_FOUND"))
        assert.deepStrictEqual(
          (yield* outboxOf(tenant, "GroupDeleted")).map((e) => [e["group_id"], e["deleted_by"], e["owner_id"]]),
          [[first!.id, member.id, member.id], [second!.id, organiser!.id, member.id], [third!.id, admin.id, member.id]]
        )
      }))
  })

  describe("group types", () => {
    it.effect("GET /group-types lists this community's types by name; a name again → 409; 401; feature off → 403", () =>
      Effect.gen(function*() {
        const { member, tenant, visitor } = yield* community()
        const elsewhere = yield* community()
        yield* makeGroupType(elsewhere.tenant, "Arts")
        const sports = yield* makeGroupType(tenant, "sports", "Games and teams")
        const arts = yield* makeGroupType(tenant, "Arts")
        const res = yield* member.client.groups.types().pipe(expectOk)
        assert.deepStrictEqual(res.data.map((t) => [t.id, t.name, t.description]), [
          [arts.id, "Arts", ""],
          [sports.id, "sports", "Games and teams"]
        ])
        const again = yield* makeGroupType(tenant, "ARTS").pipe(Effect.flip)
        assert.deepInclude(again, { _tag: "AlreadyExists", field: "name" })

        yield* visitor.client.groups.types().pipe(expectError(401, "AUTH_REQUIRED"))
        const off = yield* community({ features: { groups: false } })
        yield* off.member.client.groups.types().pipe(expectError(403, "FEATURE_DISABLED"))
      }))
  })
})
