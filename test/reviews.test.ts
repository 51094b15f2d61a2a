import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import type { Tenant } from "@timebank/domain"
import { type CursorMeta, RecordId } from "@timebank/domain"
import { Effect } from "effect"
import { codeOf, dataOf, errorsOf, fieldsOf } from "./fixtures/bodies.js"
import {
  apiClient,
  expectError,
  expectStatus,
  expectWire,
  ownAddressClient,
  pageCursor,
  statusOf,
  wireClient
} from "./fixtures/client.js"
import { actor } from "./fixtures/community.js"
import { fromIp, randomIp } from "./fixtures/servers.js"
import { rawRequest, TestApp } from "./fixtures/TestApp.js"
import { authHeaders, makeAdmin, makeSuperAdmin, makeUser } from "./fixtures/users.js"
import { makeMembership, makeOrganisation, makeReview, organisationCommunity } from "./fixtures/volunteering.js"

const includes = (actual: unknown, expected: Record<string, unknown>) =>
  assert.deepInclude<Record<string, unknown>>(actual as Record<string, unknown>, expected)

const REVIEWS = "/api/v2/volunteering/reviews"
type Method = "GET" | "POST"
type Headers = Record<string, string>

/** For what the typed client cannot send: odd bodies, unknown types and ids that are not ids in the path. */
const call = (method: Method, path: string, headers: Headers, body?: unknown) =>
  rawRequest(method, path, {
    headers: { ...fromIp(randomIp()), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })

/** A community with an organisation owned by Olga Owner; Mia Member reviews, Otto Other is reviewed. */
const community = (options: Parameters<typeof organisationCommunity>[0] = {}) =>
  Effect.map(organisationCommunity(options), (c) => ({ ...c, reviewer: c.member }))

const reviewRows = (tenant: Tenant) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<Record<string, unknown>>`SELECT * FROM reviews WHERE tenant_id = ${tenant.id} ORDER BY id`
  ).pipe(Effect.orDie)

const eventsOf = (tenant: Tenant, type: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ payload: Record<string, unknown> }>`
      SELECT payload FROM outbox_events WHERE tenant_id = ${tenant.id} AND event_type = ${type} ORDER BY id`.pipe(
      Effect.map((rows) => rows.map((r) => r.payload))
    )).pipe(Effect.orDie)

type ReviewItem = { id: number; reviewer_id: number; rating: number; created_at: string } & Record<string, unknown>

layer(TestApp(), { excludeTestServices: true, timeout: "180 seconds" })("reviews", (it) => {
  describe("create", () => {
    it.effect("POST reviews an organisation (201, approved), writes ReviewCreated, and the list shows it", () =>
      Effect.gen(function*() {
        const { organisation, owner, reviewer, tenant, visitor } = yield* community()
        // Raw: the comment's surrounding spaces are trimmed by the server, which the typed client would refuse.
        const res = yield* call("POST", REVIEWS, reviewer.headers, {
          target_type: "organization",
          target_id: organisation.id,
          rating: 4,
          comment: "  Friendly and well organised.  "
        })
        assert.strictEqual(res.status, 201, res.text)
        const created = dataOf<ReviewItem>(res.body)
        assert.deepStrictEqual(res.body, {
          data: {
            id: created.id,
            reviewer_id: reviewer.id,
            reviewer: { id: reviewer.id, first_name: "Mia", last_name: "Member", avatar_url: null },
            target_type: "organization",
            target_id: organisation.id,
            rating: 4,
            comment: "Friendly and well organised.",
            approved: true,
            created_at: created.created_at
          },
          meta: {}
        })
        assert.match(created.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/)
        const rows = yield* reviewRows(tenant)
        assert.strictEqual(rows.length, 1)
        assert.include(rows[0]!, { approved: true, rating: 4, target_type: "organization" })
        assert.deepStrictEqual(yield* eventsOf(tenant, "ReviewCreated"), [{
          review_id: created.id,
          reviewer_id: reviewer.id,
          target_type: "organization",
          target_id: organisation.id,
          rating: 4,
          target_name: organisation.name,
          notify_user_ids: [owner.id]
        }])
        // The list item is the created review exactly, on the wire.
        const wire = yield* wireClient(visitor)
        const listed = yield* wire.reviews.list({
          path: { type: "organization", id: organisation.id },
          urlParams: {},
          withResponse: true
        }).pipe(expectWire(200))
        assert.deepStrictEqual(listed.body, { data: [dataOf(res.body)], meta: { per_page: 20, has_more: false } })
        // The organisation's aggregates follow.
        const detail = yield* (yield* ownAddressClient(visitor)).organisations.get({ path: { id: organisation.id } })
        includes(detail.data, { review_count: 1, average_rating: 4 })
      }))

    it.effect("reviews a member; the comment defaults to empty", () =>
      Effect.gen(function*() {
        const { other, reviewer, tenant, visitor } = yield* community()
        // Raw: without a comment, which the typed client always sends.
        const res = yield* call("POST", REVIEWS, reviewer.headers, {
          target_type: "user",
          target_id: other.id,
          rating: 5
        })
        assert.strictEqual(res.status, 201, res.text)
        includes(dataOf(res.body), { target_type: "user", target_id: other.id, rating: 5, comment: "" })
        // The event names the reviewed member and tells them (notifications may not read volunteering's tables).
        assert.deepStrictEqual(yield* eventsOf(tenant, "ReviewCreated"), [{
          review_id: dataOf<ReviewItem>(res.body).id,
          reviewer_id: reviewer.id,
          target_type: "user",
          target_id: other.id,
          rating: 5,
          target_name: "Otto Other",
          notify_user_ids: [other.id]
        }])
        const listed = yield* visitor.client.reviews.list({ path: { type: "user", id: other.id }, urlParams: {} })
        assert.deepStrictEqual(listed.data.map((r) => r.id), [dataOf<ReviewItem>(res.body).id])
      }))

    it.effect("a review of an organisation tells its creator and active owners, once each, never the reviewer", () =>
      Effect.gen(function*() {
        const { organisation, owner, reviewer, other, tenant } = yield* community()
        const [coOwner, admin, pendingOwner, removedOwner] = yield* Effect.all([
          makeUser(tenant, { firstName: "Cora", lastName: "Coowner" }),
          makeUser(tenant, { firstName: "Adam", lastName: "Orgadmin" }),
          makeUser(tenant, { firstName: "Pam", lastName: "Pending" }),
          makeUser(tenant, { firstName: "Rex", lastName: "Removed" })
        ])
        yield* makeMembership(organisation, coOwner, "owner")
        yield* makeMembership(organisation, admin, "admin")
        yield* makeMembership(organisation, pendingOwner, "owner", "pending")
        yield* makeMembership(organisation, removedOwner, "owner", "removed")
        // The reviewer is an owner too (a member may review an organisation they help run): not told.
        yield* makeMembership(organisation, reviewer, "owner")
        const payload = { target_type: "organization", target_id: organisation.id, rating: 3, comment: "" } as const
        yield* reviewer.client.reviews.create({ payload, withResponse: true }).pipe(expectStatus(201))
        // The creator reviewing their own organisation tells the other owners only.
        yield* owner.client.reviews.create({ payload, withResponse: true }).pipe(expectStatus(201))
        // Another organisation's owners are not told.
        yield* makeOrganisation(other)
        const events = yield* eventsOf(tenant, "ReviewCreated")
        assert.deepStrictEqual(events.map((e) => [e["reviewer_id"], e["target_name"], e["notify_user_ids"]]), [
          [reviewer.id, organisation.name, [owner.id, coOwner.id].sort((a, b) => a - b)],
          [owner.id, organisation.name, [reviewer.id, coOwner.id].sort((a, b) => a - b)]
        ])
      }))

    it.effect("a second review of the same target by the same member is 409 ALREADY_EXISTS; others may still", () =>
      Effect.gen(function*() {
        const { organisation, other, reviewer, tenant } = yield* community()
        const payload = { target_type: "organization", target_id: organisation.id, rating: 5, comment: "" } as const
        yield* reviewer.client.reviews.create({ payload, withResponse: true }).pipe(expectStatus(201))
        yield* reviewer.client.reviews.create({ payload: { ...payload, rating: 1 } }).pipe(
          expectError(409, "ALREADY_EXISTS")
        )
        yield* other.client.reviews.create({ payload, withResponse: true }).pipe(expectStatus(201))
        // The same reviewer may review a member with the same id space separately.
        yield* reviewer.client.reviews.create({
          payload: { target_type: "user", target_id: other.id, rating: 3, comment: "" },
          withResponse: true
        }).pipe(expectStatus(201))
        assert.deepStrictEqual((yield* reviewRows(tenant)).map((r) => r.rating), [5, 5, 3])
        assert.strictEqual((yield* eventsOf(tenant, "ReviewCreated")).length, 3)
      }))

    it.effect("two identical reviews sent at once: exactly one is stored, the other is 409", () =>
      Effect.gen(function*() {
        const { organisation, reviewer, tenant } = yield* community()
        const payload = { target_type: "organization", target_id: organisation.id, rating: 2, comment: "" } as const
        const answers = yield* Effect.all(
          Array.from({ length: 4 }, () => statusOf(reviewer.client.reviews.create({ payload, withResponse: true }))),
          { concurrency: "unbounded" }
        )
        assert.sameMembers(answers, [201, 409, 409, 409])
        assert.strictEqual((yield* reviewRows(tenant)).length, 1)
        assert.strictEqual((yield* eventsOf(tenant, "ReviewCreated")).length, 1)
      }))

    it.effect("reviewing oneself is 422 on target_id; bad ratings and types are 422 per field", () =>
      Effect.gen(function*() {
        const { organisation, reviewer, tenant } = yield* community()
        const self = yield* reviewer.client.reviews.create({
          payload: { target_type: "user", target_id: reviewer.id, rating: 5, comment: "" }
        }).pipe(expectError(422, "VALIDATION_ERROR"))
        assert.deepStrictEqual(self.errors.map((e) => [e.code, e.field]), [["VALIDATION_ERROR", "target_id"]])
        // Raw: bodies the contract refuses, which the typed client would not send.
        const org = { target_type: "organization", target_id: organisation.id }
        const cases: Array<readonly [unknown, ReadonlyArray<string>]> = [
          [{ ...org, rating: 0 }, ["rating"]],
          [{ ...org, rating: 6 }, ["rating"]],
          [{ ...org, rating: 2.5 }, ["rating"]],
          [{ ...org, rating: "5" }, ["rating"]],
          [{ ...org }, ["rating"]],
          [{ ...org, rating: 3, comment: "x".repeat(2001) }, ["comment"]],
          [{ ...org, rating: 3, comment: 7 }, ["comment"]],
          [{ target_type: "event", target_id: organisation.id, rating: 3 }, ["target_type"]],
          [{ target_type: "organization", target_id: 0, rating: 3 }, ["target_id"]],
          [{ target_type: "organization", target_id: "1", rating: 3 }, ["target_id"]],
          [{ target_type: 1, target_id: -1, rating: 9, comment: null }, [
            "target_type",
            "target_id",
            "rating",
            "comment"
          ]]
        ]
        for (const [body, fields] of cases) {
          const res = yield* call("POST", REVIEWS, reviewer.headers, body)
          assert.strictEqual(res.status, 422, `${JSON.stringify(body).slice(0, 120)}: ${res.text}`)
          assert.isTrue(errorsOf(res.body).every((e) => e.code === "VALIDATION_ERROR"))
          assert.sameMembers(fieldsOf(res.body), [...fields], JSON.stringify(body).slice(0, 120))
        }
        assert.deepStrictEqual(yield* reviewRows(tenant), [])
      }))

    it.effect("the target must exist in this community: unknown, other-tenant, pending or suspended is 404", () =>
      Effect.gen(function*() {
        const { owner, reviewer, tenant } = yield* community()
        const stranger = yield* community()
        const pending = yield* makeOrganisation(owner, { status: "pending" })
        const suspended = yield* makeOrganisation(owner, { status: "suspended" })
        const targets: Array<readonly ["organization" | "user", number]> = [
          ["organization", stranger.organisation.id],
          ["organization", 99_999_999],
          ["organization", pending.id],
          ["organization", suspended.id],
          ["user", stranger.reviewer.id],
          ["user", 99_999_999]
        ]
        for (const [type, id] of targets) {
          yield* reviewer.client.reviews.create({
            payload: { target_type: type, target_id: id, rating: 3, comment: "" }
          }).pipe(expectError(404, "NOT_FOUND"))
        }
        assert.deepStrictEqual(yield* reviewRows(tenant), [])
        assert.deepStrictEqual(yield* reviewRows(stranger.tenant), [])
      }))

    it.effect("needs a token (401); a platform super-admin visiting the community may not review (403)", () =>
      Effect.gen(function*() {
        const { organisation, tenant, visitor } = yield* community()
        const payload = { target_type: "organization", target_id: organisation.id, rating: 5, comment: "" } as const
        yield* visitor.client.reviews.create({ payload }).pipe(expectError(401, "AUTH_REQUIRED"))
        const visiting = yield* apiClient(yield* authHeaders(yield* makeSuperAdmin(), tenant))
        yield* visiting.reviews.create({ payload }).pipe(expectError(403, "FORBIDDEN"))
        // A community admin is a member like any other here.
        const admin = yield* actor(yield* makeAdmin(tenant))
        yield* admin.client.reviews.create({ payload, withResponse: true }).pipe(expectStatus(201))
        assert.strictEqual((yield* reviewRows(tenant)).length, 1)
      }))
  })

  describe("list", () => {
    it.effect("approved reviews of a target, newest first, paged by cursor to the end", () =>
      Effect.gen(function*() {
        const { organisation, other, tenant, visitor } = yield* community()
        const made: Array<number> = []
        for (let i = 1; i <= 5; i++) {
          const reviewer = yield* makeUser(tenant, { firstName: `R${i}` })
          made.push((yield* makeReview(reviewer, { type: "organization", id: organisation.id }, 1 + (i % 5))).id)
        }
        // Not approved (an admin hid it), of another target, of a member with the same id: not listed.
        const hidden = yield* makeReview(other, { type: "organization", id: organisation.id }, 1)
        yield* Effect.flatMap(SqlClient.SqlClient, (sql) =>
          sql`UPDATE reviews SET approved = false WHERE id = ${hidden.id}`)
          .pipe(Effect.orDie)
        const otherOrg = yield* makeOrganisation(other)
        yield* makeReview(other, { type: "organization", id: otherOrg.id }, 5)
        const seen: Array<number> = []
        const metas: Array<CursorMeta> = []
        let cursor: string | undefined
        for (let page = 0; page < 10; page++) {
          const res = yield* visitor.client.reviews.list({
            path: { type: "organization", id: organisation.id },
            urlParams: { per_page: 2, ...(cursor === undefined ? {} : { cursor: pageCursor(RecordId, cursor) }) }
          })
          for (const item of res.data) {
            assert.strictEqual(item.reviewer?.first_name, `R${made.indexOf(item.id) + 1}`)
            assert.strictEqual(item.reviewer_id, item.reviewer?.id)
          }
          seen.push(...res.data.map((r) =>
            r.id
          ))
          metas.push(res.meta)
          cursor = res.meta.cursor
          if (cursor === undefined) break
        }
        assert.deepStrictEqual(seen, [...made].reverse())
        assert.deepStrictEqual(metas.map((m) => m.has_more), [true, true, false])
        assert.notProperty(metas[2]!, "cursor")
        // Raw: a cursor and a page size the typed client would not send.
        const bad = yield* call("GET", `${REVIEWS}/organization/${organisation.id}?cursor=zzz!`, visitor.headers)
        assert.strictEqual(bad.status, 422)
        assert.deepStrictEqual(fieldsOf(bad.body), ["cursor"])
        const tooMany = yield* call("GET", `${REVIEWS}/organization/${organisation.id}?per_page=101`, visitor.headers)
        assert.strictEqual(tooMany.status, 422)
        assert.deepStrictEqual(fieldsOf(tooMany.body), ["per_page"])
      }))

    it.effect("an unknown type is 422 on field type; unknown, other-tenant or hidden targets and bad ids are 404", () =>
      Effect.gen(function*() {
        const { organisation, owner, reviewer, visitor } = yield* community()
        const stranger = yield* community()
        // Raw: types and ids that are not in the contract's path.
        for (const type of ["event", "organisation", "users"]) {
          const res = yield* call("GET", `${REVIEWS}/${type}/${organisation.id}`, visitor.headers)
          assert.strictEqual(res.status, 422, `${type}: ${res.text}`)
          assert.deepStrictEqual(errorsOf(res.body).map((e) => [e.code, e.field]), [["VALIDATION_ERROR", "type"]])
        }
        for (const path of ["organization/abc", "user/0"]) {
          const res = yield* call("GET", `${REVIEWS}/${path}`, visitor.headers)
          assert.strictEqual(res.status, 404, `${path}: ${res.text}`)
          assert.strictEqual(codeOf(res.body), "NOT_FOUND")
        }
        const suspended = yield* makeOrganisation(owner, { status: "suspended" })
        const targets: Array<readonly ["organization" | "user", number]> = [
          ["organization", stranger.organisation.id],
          ["organization", 99_999_999],
          ["organization", suspended.id],
          ["user", stranger.reviewer.id]
        ]
        for (const [type, id] of targets) {
          yield* visitor.client.reviews.list({ path: { type, id }, urlParams: {} }).pipe(expectError(404, "NOT_FOUND"))
        }
        const empty = yield* visitor.client.reviews.list({ path: { type: "user", id: reviewer.id }, urlParams: {} })
        assert.deepStrictEqual(empty, { data: [], meta: { per_page: 20, has_more: false } })
      }))
  })

  describe("feature gate", () => {
    it.effect("with volunteering switched off both review routes are 403 FEATURE_DISABLED", () =>
      Effect.gen(function*() {
        const { organisation, reviewer, tenant, visitor } = yield* community({ features: { volunteering: false } })
        yield* reviewer.client.reviews.create({
          payload: { target_type: "organization", target_id: organisation.id, rating: 5, comment: "" }
        }).pipe(expectError(403, "FEATURE_DISABLED"))
        yield* visitor.client.reviews.list({ path: { type: "organization", id: organisation.id }, urlParams: {} })
          .pipe(expectError(403, "FEATURE_DISABLED"))
        assert.deepStrictEqual(yield* reviewRows(tenant), [])
      }))
  })
})
