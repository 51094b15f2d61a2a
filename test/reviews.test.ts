import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import type { Tenant } from "@timebank/domain"
import { Effect } from "effect"
import { codeOf, dataOf, errorsOf, fieldsOf, type Meta, metaOf } from "./fixtures/bodies.js"
import { fromIp, randomIp } from "./fixtures/servers.js"
import { makeTenant, tenantHeaders } from "./fixtures/tenants.js"
import { rawRequest, TestApp } from "./fixtures/TestApp.js"
import { authHeaders, makeAdmin, makeSuperAdmin, makeUser } from "./fixtures/users.js"
import { makeOrganisation, makeReview } from "./fixtures/volunteering.js"

const includes = (actual: unknown, expected: Record<string, unknown>) =>
  assert.deepInclude<Record<string, unknown>>(actual as Record<string, unknown>, expected)

const REVIEWS = "/api/v2/volunteering/reviews"
type Method = "GET" | "POST"
type Headers = Record<string, string>

const call = (method: Method, path: string, headers: Headers, body?: unknown) =>
  rawRequest(method, path, {
    headers: { ...fromIp(randomIp()), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })

/** A community with an organisation (owned by `owner`) and two more signed-in members. */
const community = (overrides: Record<string, unknown> = {}) =>
  Effect.gen(function*() {
    const tenant = yield* makeTenant(overrides)
    const owner = yield* makeUser(tenant, { firstName: "Olga", lastName: "Owner" })
    const reviewer = yield* makeUser(tenant, { firstName: "Rita", lastName: "Reviewer" })
    const other = yield* makeUser(tenant, { firstName: "Otto", lastName: "Other" })
    const organisation = yield* makeOrganisation(owner, { name: `Reviewed Org ${tenant.id}` })
    return {
      tenant,
      owner,
      reviewer,
      other,
      organisation,
      ownerHeaders: yield* authHeaders(owner),
      reviewerHeaders: yield* authHeaders(reviewer),
      otherHeaders: yield* authHeaders(other),
      anonymous: tenantHeaders(tenant)
    }
  })

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
        const { anonymous, organisation, reviewer, reviewerHeaders, tenant } = yield* community()
        const res = yield* call("POST", REVIEWS, reviewerHeaders, {
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
            reviewer: { id: reviewer.id, first_name: "Rita", last_name: "Reviewer", avatar_url: null },
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
          rating: 4
        }])
        const listed = yield* call("GET", `${REVIEWS}/organization/${organisation.id}`, anonymous)
        assert.strictEqual(listed.status, 200, listed.text)
        assert.deepStrictEqual(listed.body, { data: [dataOf(res.body)], meta: { per_page: 20, has_more: false } })
        // The organisation's aggregates follow.
        const detail = yield* call("GET", `/api/v2/volunteering/organisations/${organisation.id}`, anonymous)
        includes(dataOf(detail.body), { review_count: 1, average_rating: 4 })
      }))

    it.effect("reviews a member; the comment defaults to empty", () =>
      Effect.gen(function*() {
        const { other, reviewerHeaders, tenant } = yield* community()
        const res = yield* call("POST", REVIEWS, reviewerHeaders, {
          target_type: "user",
          target_id: other.id,
          rating: 5
        })
        assert.strictEqual(res.status, 201, res.text)
        includes(dataOf(res.body), { target_type: "user", target_id: other.id, rating: 5, comment: "" })
        const listed = yield* call("GET", `${REVIEWS}/user/${other.id}`, tenantHeaders(tenant))
        assert.deepStrictEqual(dataOf<Array<ReviewItem>>(listed.body).map((r) => r.id), [
          dataOf<ReviewItem>(res.body).id
        ])
      }))

    it.effect("a second review of the same target by the same member is 409 ALREADY_EXISTS; others may still", () =>
      Effect.gen(function*() {
        const { organisation, other, otherHeaders, reviewerHeaders, tenant } = yield* community()
        const body = { target_type: "organization", target_id: organisation.id, rating: 5 }
        assert.strictEqual((yield* call("POST", REVIEWS, reviewerHeaders, body)).status, 201)
        const again = yield* call("POST", REVIEWS, reviewerHeaders, { ...body, rating: 1 })
        assert.strictEqual(again.status, 409, again.text)
        assert.strictEqual(codeOf(again.body), "ALREADY_EXISTS")
        assert.strictEqual((yield* call("POST", REVIEWS, otherHeaders, body)).status, 201)
        // The same reviewer may review a member with the same id space separately.
        const asUser = yield* call("POST", REVIEWS, reviewerHeaders, {
          target_type: "user",
          target_id: other.id,
          rating: 3
        })
        assert.strictEqual(asUser.status, 201, asUser.text)
        assert.deepStrictEqual((yield* reviewRows(tenant)).map((r) => r.rating), [5, 5, 3])
        assert.strictEqual((yield* eventsOf(tenant, "ReviewCreated")).length, 3)
      }))

    it.effect("two identical reviews sent at once: exactly one is stored, the other is 409", () =>
      Effect.gen(function*() {
        const { organisation, reviewerHeaders, tenant } = yield* community()
        const body = { target_type: "organization", target_id: organisation.id, rating: 2 }
        const answers = yield* Effect.all(
          Array.from({ length: 4 }, () => call("POST", REVIEWS, reviewerHeaders, body)),
          { concurrency: "unbounded" }
        )
        assert.sameMembers(answers.map((a) => a.status), [201, 409, 409, 409])
        assert.strictEqual((yield* reviewRows(tenant)).length, 1)
        assert.strictEqual((yield* eventsOf(tenant, "ReviewCreated")).length, 1)
      }))

    it.effect("reviewing oneself is 422 on target_id; bad ratings and types are 422 per field", () =>
      Effect.gen(function*() {
        const { organisation, reviewer, reviewerHeaders, tenant } = yield* community()
        const self = yield* call("POST", REVIEWS, reviewerHeaders, {
          target_type: "user",
          target_id: reviewer.id,
          rating: 5
        })
        assert.strictEqual(self.status, 422, self.text)
        assert.deepStrictEqual(errorsOf(self.body).map((e) => [e.code, e.field]), [["VALIDATION_ERROR", "target_id"]])
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
          const res = yield* call("POST", REVIEWS, reviewerHeaders, body)
          assert.strictEqual(res.status, 422, `${JSON.stringify(body).slice(0, 120)}: ${res.text}`)
          assert.isTrue(errorsOf(res.body).every((e) => e.code === "VALIDATION_ERROR"))
          assert.sameMembers(fieldsOf(res.body), [...fields], JSON.stringify(body).slice(0, 120))
        }
        assert.deepStrictEqual(yield* reviewRows(tenant), [])
      }))

    it.effect("the target must exist in this community: unknown, other-tenant, pending or suspended is 404", () =>
      Effect.gen(function*() {
        const { owner, reviewerHeaders, tenant } = yield* community()
        const stranger = yield* community()
        const pending = yield* makeOrganisation(owner, { status: "pending" })
        const suspended = yield* makeOrganisation(owner, { status: "suspended" })
        const targets: Array<readonly [string, number]> = [
          ["organization", stranger.organisation.id],
          ["organization", 99_999_999],
          ["organization", pending.id],
          ["organization", suspended.id],
          ["user", stranger.reviewer.id],
          ["user", 99_999_999]
        ]
        for (const [type, id] of targets) {
          const res = yield* call("POST", REVIEWS, reviewerHeaders, { target_type: type, target_id: id, rating: 3 })
          assert.strictEqual(res.status, 404, `${type} ${id}: ${res.text}`)
          assert.strictEqual(codeOf(res.body), "NOT_FOUND")
        }
        assert.deepStrictEqual(yield* reviewRows(tenant), [])
        assert.deepStrictEqual(yield* reviewRows(stranger.tenant), [])
      }))

    it.effect("needs a token (401); a platform super-admin visiting the community may not review (403)", () =>
      Effect.gen(function*() {
        const { anonymous, organisation, tenant } = yield* community()
        const body = { target_type: "organization", target_id: organisation.id, rating: 5 }
        const unauthenticated = yield* call("POST", REVIEWS, anonymous, body)
        assert.strictEqual(unauthenticated.status, 401)
        assert.strictEqual(codeOf(unauthenticated.body), "AUTH_REQUIRED")
        const visiting = yield* call("POST", REVIEWS, yield* authHeaders(yield* makeSuperAdmin(), tenant), body)
        assert.strictEqual(visiting.status, 403, visiting.text)
        assert.strictEqual(codeOf(visiting.body), "FORBIDDEN")
        // A community admin is a member like any other here.
        const admin = yield* makeAdmin(tenant)
        assert.strictEqual((yield* call("POST", REVIEWS, yield* authHeaders(admin), body)).status, 201)
        assert.strictEqual((yield* reviewRows(tenant)).length, 1)
      }))
  })

  describe("list", () => {
    it.effect("approved reviews of a target, newest first, paged by cursor to the end", () =>
      Effect.gen(function*() {
        const { anonymous, organisation, other, tenant } = yield* community()
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
        const metas: Array<Meta> = []
        let query = "?per_page=2"
        for (let page = 0; page < 10; page++) {
          const res = yield* call("GET", `${REVIEWS}/organization/${organisation.id}${query}`, anonymous)
          assert.strictEqual(res.status, 200, res.text)
          const items = dataOf<Array<ReviewItem & { reviewer: { first_name: string } }>>(res.body)
          for (const item of items) {
            assert.strictEqual(item.reviewer.first_name, `R${made.indexOf(item.id) + 1}`)
            assert.strictEqual(item.reviewer_id, (item.reviewer as unknown as { id: number }).id)
          }
          seen.push(...items.map((r) =>
            r.id
          ))
          metas.push(metaOf(res.body))
          const cursor = metaOf(res.body).cursor
          if (cursor === undefined) break
          query = `?per_page=2&cursor=${cursor}`
        }
        assert.deepStrictEqual(seen, [...made].reverse())
        assert.deepStrictEqual(metas.map((m) => m.has_more), [true, true, false])
        assert.notProperty(metas[2]!, "cursor")
        const bad = yield* call("GET", `${REVIEWS}/organization/${organisation.id}?cursor=zzz!`, anonymous)
        assert.strictEqual(bad.status, 422)
        assert.deepStrictEqual(fieldsOf(bad.body), ["cursor"])
        const tooMany = yield* call("GET", `${REVIEWS}/organization/${organisation.id}?per_page=101`, anonymous)
        assert.strictEqual(tooMany.status, 422)
        assert.deepStrictEqual(fieldsOf(tooMany.body), ["per_page"])
      }))

    it.effect("an unknown type is 422 on field type; unknown, other-tenant or hidden targets and bad ids are 404", () =>
      Effect.gen(function*() {
        const { anonymous, organisation, owner, reviewer } = yield* community()
        const stranger = yield* community()
        for (const type of ["event", "organisation", "users"]) {
          const res = yield* call("GET", `${REVIEWS}/${type}/${organisation.id}`, anonymous)
          assert.strictEqual(res.status, 422, `${type}: ${res.text}`)
          assert.deepStrictEqual(errorsOf(res.body).map((e) => [e.code, e.field]), [["VALIDATION_ERROR", "type"]])
        }
        const suspended = yield* makeOrganisation(owner, { status: "suspended" })
        for (
          const path of [
            `organization/${stranger.organisation.id}`,
            `organization/99999999`,
            `organization/${suspended.id}`,
            `organization/abc`,
            `user/${stranger.reviewer.id}`,
            `user/0`
          ]
        ) {
          const res = yield* call("GET", `${REVIEWS}/${path}`, anonymous)
          assert.strictEqual(res.status, 404, `${path}: ${res.text}`)
          assert.strictEqual(codeOf(res.body), "NOT_FOUND")
        }
        const empty = yield* call("GET", `${REVIEWS}/user/${reviewer.id}`, anonymous)
        assert.deepStrictEqual(empty.body, { data: [], meta: { per_page: 20, has_more: false } })
      }))
  })

  describe("feature gate", () => {
    it.effect("with volunteering switched off both review routes are 403 FEATURE_DISABLED", () =>
      Effect.gen(function*() {
        const { anonymous, organisation, reviewerHeaders, tenant } = yield* community({
          features: { volunteering: false }
        })
        const post = yield* call("POST", REVIEWS, reviewerHeaders, {
          target_type: "organization",
          target_id: organisation.id,
          rating: 5
        })
        assert.strictEqual(post.status, 403, post.text)
        assert.strictEqual(codeOf(post.body), "FEATURE_DISABLED")
        const list = yield* call("GET", `${REVIEWS}/organization/${organisation.id}`, anonymous)
        assert.strictEqual(list.status, 403, list.text)
        assert.strictEqual(codeOf(list.body), "FEATURE_DISABLED")
        assert.deepStrictEqual(yield* reviewRows(tenant), [])
      }))
  })
})
