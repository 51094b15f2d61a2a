import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { type ReportTargetType, UserId } from "@timebank/domain"
import { Effect } from "effect"
import { codeOf, sortedFieldsOf as fieldsOf } from "../fixtures/bodies.js"
import { apiClient, expectError, expectOk, expectStatus } from "../fixtures/client.js"
import { type Actor, community, makeActor } from "../fixtures/community.js"
import { makeEvent, outboxOf, rawCall } from "../fixtures/events.js"
import { comment, hideComment, hidePost, joinGroup, makeGroup, post } from "../fixtures/feed.js"
import { makeListing } from "../fixtures/listings.js"
import { bellOf, dispatchSettled, waitForBells } from "../fixtures/notifications.js"
import { TestApp } from "../fixtures/TestApp.js"
import { authHeaders, makeSuperAdmin, type TestUser } from "../fixtures/users.js"
import { makeReview } from "../fixtures/volunteering.js"

const REPORTS = "/api/v2/reports"

interface Reported {
  readonly target_type: ReportTargetType
  readonly target_id: number
  readonly reason?: string
  readonly safeguarding?: boolean
}

/** `who` reports something; answers the call (for `expectStatus` / `expectError`). */
const report = (who: Actor, target: Reported) =>
  who.client.reports.create({
    payload: { reason: "Not appropriate here", ...target },
    withResponse: true
  })

const reportOk = (who: Actor, target: Reported) =>
  Effect.map(report(who, target).pipe(expectStatus(201)), (r) => r.data)

/** The stored row of a report. */
const reportRow = (id: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<Record<string, unknown>>`
      SELECT tenant_id::int, reporter_id::int, target_type, target_id::int, reason, details, safeguarding, status
      FROM member_reports WHERE id = ${id}`
  ).pipe(Effect.map((rows) => rows[0]), Effect.orDie)

const reportsBy = (who: TestUser) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM member_reports WHERE reporter_id = ${who.id}`
  ).pipe(Effect.map((rows) => rows[0]!.n), Effect.orDie)

/** A direct message from `from` to `to`, written straight to the database (the messaging routes come later). */
const makeMessage = (from: TestUser, to: TestUser) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const [low, high] = from.id < to.id ? [from.id, to.id] : [to.id, from.id]
    const [thread] = yield* sql<{ id: string }>`
      INSERT INTO message_threads (tenant_id, user_low, user_high) VALUES (${from.tenant.id}, ${low}, ${high})
      ON CONFLICT (tenant_id, user_low, user_high) DO UPDATE SET user_low = EXCLUDED.user_low
      RETURNING id`
    const [message] = yield* sql<{ id: string }>`
      INSERT INTO messages (tenant_id, thread_id, sender_id, recipient_id, body)
      VALUES (${from.tenant.id}, ${thread!.id}, ${from.id}, ${to.id}, 'Hello there') RETURNING id`
    return Number(message!.id)
  }).pipe(Effect.orDie)

/** Bells of `type` linking to `link` that `who` has, once the dispatch handled everything written so far. */
const bellsAt = (who: Actor, type: string, link: string) =>
  Effect.zipRight(
    dispatchSettled,
    Effect.map(
      Effect.orDie(who.client.notifications.list({ urlParams: { per_page: 100 } })),
      (page) => page.data.filter((b) => b.type === type && b.link === link)
    )
  )

/** One of each kind of record in `c`'s community, owned by its admin or other (so the member may report them). */
const targetsOf = (c: { readonly admin: Actor; readonly other: Actor; readonly member: Actor }) =>
  Effect.gen(function*() {
    const listing = yield* makeListing(c.other)
    const event = yield* makeEvent(c.other)
    const review = yield* makeReview(c.other, { type: "user", id: c.admin.id }, 2)
    const group = yield* makeGroup(c.other)
    const feedPost = yield* post(c.other)
    const feedComment = yield* comment(c.admin, feedPost.id)
    const message = yield* makeMessage(c.other, c.member)
    return [
      ["user", c.other.id],
      ["listing", listing.id],
      ["event", event.id],
      ["review", review.id],
      ["group", group.id],
      ["feed_post", feedPost.id],
      ["comment", feedComment.id],
      ["message", message]
    ] as const satisfies ReadonlyArray<readonly [ReportTargetType, number]>
  })

layer(TestApp(), { excludeTestServices: true, timeout: "120 seconds" })("member reports", (it) => {
  describe("create", () => {
    it.effect("POST opens a report (201) with exactly D14a's fields; the row is stored; no flag without safeguarding", () =>
      Effect.gen(function*() {
        const { admin, member, other, tenant } = yield* community({ signIn: "token" })
        // Raw: untrimmed text, which the client does not send, and the exact body on the wire.
        const res = yield* rawCall("POST", REPORTS, member.headers, {
          target_type: "user",
          target_id: other.id,
          reason: "  Asked me for money  ",
          details: "\tSeveral times, by message. "
        })
        assert.strictEqual(res.status, 201, res.text)
        const data = (res.body as { data: { id: number; created_at: string } }).data
        assert.deepStrictEqual(res.body, {
          data: {
            id: data.id,
            target_type: "user",
            target_id: other.id,
            reason: "Asked me for money",
            details: "Several times, by message.",
            safeguarding: false,
            status: "open",
            created_at: data.created_at
          },
          meta: {}
        })
        assert.match(data.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/)
        assert.deepStrictEqual(yield* reportRow(data.id), {
          tenant_id: tenant.id,
          reporter_id: member.id,
          target_type: "user",
          target_id: other.id,
          reason: "Asked me for money",
          details: "Several times, by message.",
          safeguarding: false,
          status: "open"
        })

        // Details are optional; blank is none. The typed client decodes the same shape.
        const plain = yield* reportOk(member, { target_type: "user", target_id: other.id })
        assert.strictEqual(plain.details, null)
        assert.strictEqual(plain.status, "open")
        // Raw: untrimmed details, which the client does not send.
        const blank = yield* rawCall("POST", REPORTS, member.headers, {
          target_type: "user",
          target_id: other.id,
          reason: "Spam",
          details: "   "
        })
        assert.strictEqual(blank.status, 201, blank.text)
        assert.strictEqual((blank.body as { data: { details: unknown } }).data.details, null)
        assert.strictEqual(yield* reportsBy(member), 3)

        assert.deepStrictEqual(yield* outboxOf(tenant, "SafeguardingFlagRaised"), [])
        yield* dispatchSettled
        const adminBells = (yield* admin.client.notifications.list({ urlParams: { per_page: 100 } })).data
        assert.deepStrictEqual(adminBells.filter((b) => b.type === "safeguarding_flag"), [])
      }))

    it.effect("safeguarding: SafeguardingFlagRaised; a bell for admins and coordinators only; a mute cannot stop it", () =>
      Effect.gen(function*() {
        const { admin, member, other, tenant } = yield* community({ signIn: "token" })
        const [coordinator, broker, secondAdmin] = yield* Effect.all([
          makeActor(tenant, { role: "coordinator", firstName: "Cora", lastName: "Coordinator" }, "token"),
          makeActor(tenant, { role: "broker", firstName: "Bob", lastName: "Broker" }, "token"),
          makeActor(tenant, { role: "admin", firstName: "Abe", lastName: "Admin" }, "token")
        ])
        // The admin muted the reporter: safeguarding must reach them all the same.
        yield* admin.client.notificationSettings.mute({ path: { id: UserId.make(member.id) } }).pipe(expectOk)

        const flagged = yield* reportOk(member, {
          target_type: "user",
          target_id: other.id,
          reason: "Worried about a child at the last session",
          safeguarding: true
        })
        assert.strictEqual(flagged.safeguarding, true)
        assert.strictEqual((yield* reportRow(flagged.id))!["safeguarding"], true)
        assert.deepStrictEqual(yield* outboxOf(tenant, "SafeguardingFlagRaised"), [{
          report_id: flagged.id,
          reporter_id: member.id,
          target_type: "user",
          target_id: other.id,
          reason: "Worried about a child at the last session"
        }])

        const link = `/admin/reports/${flagged.id}`
        for (const staff of [admin, coordinator, secondAdmin]) {
          const bells = (yield* bellOf(staff, "safeguarding_flag")).filter((b) => b.link === link)
          assert.strictEqual(bells.length, 1, `bells of ${staff.id}`)
          assert.deepInclude(bells[0], {
            category: "safeguarding",
            title: "Safeguarding flag raised",
            body: "Worried about a child at the last session",
            link
          })
          assert.isNull(bells[0]!.actor)
        }
        for (const outsider of [broker, member, other]) {
          assert.deepStrictEqual(yield* bellsAt(outsider, "safeguarding_flag", link), [], `bells of ${outsider.id}`)
        }

        // A coordinator who raises a flag is not told of their own; the admins are.
        const own = yield* reportOk(coordinator, {
          target_type: "user",
          target_id: other.id,
          reason: "Follow-up",
          safeguarding: true
        })
        const ownLink = `/admin/reports/${own.id}`
        const adminBells = yield* waitForBells(admin, (items) => items.some((b) => b.link === ownLink))
        assert.deepStrictEqual(adminBells.filter((b) => b.link === ownLink).map((b) => b.type), ["safeguarding_flag"])
        assert.deepStrictEqual(yield* bellsAt(coordinator, "safeguarding_flag", ownLink), [])
      }))

    it.effect("every kind of target: a real one of this community → 201; a fake one or another tenant's → 404", () =>
      Effect.gen(function*() {
        const here = yield* community({ signIn: "token" })
        const there = yield* community({ signIn: "token" })
        const mine = yield* targetsOf(here)
        const theirs = yield* targetsOf(there)
        for (const [targetType, id] of mine) {
          const made = yield* reportOk(here.member, { target_type: targetType, target_id: id })
          assert.deepInclude(made, { target_type: targetType, target_id: id, status: "open" })
          assert.deepInclude(yield* reportRow(made.id), { target_type: targetType, target_id: id })
        }
        for (const [targetType, id] of [...theirs, ...mine.map(([t]) => [t, 999_999_999] as const)]) {
          const f = yield* report(here.member, { target_type: targetType, target_id: id }).pipe(
            expectError(404, "NOT_FOUND")
          )
          assert.deepStrictEqual(f.fields, ["target_id"], `${targetType} ${id}`)
        }
        assert.strictEqual(yield* reportsBy(here.member), mine.length)
      }))

    it.effect("what the reporter cannot see is not there (404); what they see of their own is (201)", () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token" })
        const { admin, member, other } = c
        // A pending listing: its owner and admins see it, nobody else.
        const pending = yield* makeListing(other, { status: "pending" })
        yield* report(member, { target_type: "listing", target_id: pending.id }).pipe(expectError(404, "NOT_FOUND"))
        yield* reportOk(admin, { target_type: "listing", target_id: pending.id })
        const ownPending = yield* makeListing(member, { status: "pending" })
        yield* reportOk(member, { target_type: "listing", target_id: ownPending.id })

        // A group waiting for review: its active members and admins see it.
        const waiting = yield* makeGroup(other, { status: "pending_review", visibility: "private" })
        yield* report(member, { target_type: "group", target_id: waiting.id }).pipe(expectError(404, "NOT_FOUND"))
        yield* reportOk(admin, { target_type: "group", target_id: waiting.id })
        yield* joinGroup(waiting, member)
        yield* reportOk(member, { target_type: "group", target_id: waiting.id })

        // Hidden posts and comments: their author and admins only.
        const hiddenPost = yield* post(other, "Something that got hidden")
        const visiblePost = yield* post(other, "Still here")
        const hiddenComment = yield* comment(other, visiblePost.id, "Hidden remark")
        yield* hidePost(hiddenPost.id)
        yield* hideComment(hiddenComment.id)
        yield* report(member, { target_type: "feed_post", target_id: hiddenPost.id }).pipe(
          expectError(404, "NOT_FOUND")
        )
        yield* report(member, { target_type: "comment", target_id: hiddenComment.id }).pipe(
          expectError(404, "NOT_FOUND")
        )
        yield* reportOk(admin, { target_type: "feed_post", target_id: hiddenPost.id })
        yield* reportOk(admin, { target_type: "comment", target_id: hiddenComment.id })

        // A post in a private group: its members see it. A comment on a hidden post goes with its post.
        const privateGroup = yield* makeGroup(other, { visibility: "private" })
        const groupPost = yield* post(other, "For members", { group_id: privateGroup.id })
        yield* report(member, { target_type: "feed_post", target_id: groupPost.id }).pipe(
          expectError(404, "NOT_FOUND")
        )
        yield* joinGroup(privateGroup, member)
        yield* reportOk(member, { target_type: "feed_post", target_id: groupPost.id })

        // A message: its sender and its recipient, nobody else (not even an admin).
        const toMember = yield* makeMessage(other, member)
        const toAdmin = yield* makeMessage(other, admin)
        yield* reportOk(member, { target_type: "message", target_id: toMember })
        yield* reportOk(other, { target_type: "message", target_id: toMember })
        yield* report(member, { target_type: "message", target_id: toAdmin }).pipe(expectError(404, "NOT_FOUND"))
        yield* report(admin, { target_type: "message", target_id: toMember }).pipe(expectError(404, "NOT_FOUND"))
      }))

    it.effect("bad input → 422 per field: target type, target id, blank or long reason, long details, oneself", () =>
      Effect.gen(function*() {
        const { member, other } = yield* community({ signIn: "token" })
        const valid = { target_type: "user", target_id: other.id, reason: "Rude" }
        const cases: Array<[Record<string, unknown>, Array<string>]> = [
          [{ ...valid, target_type: "post" }, ["target_type"]],
          [{ ...valid, target_type: undefined }, ["target_type"]],
          [{ ...valid, target_id: 0 }, ["target_id"]],
          [{ ...valid, target_id: "12" }, ["target_id"]],
          [{ ...valid, reason: "" }, ["reason"]],
          [{ ...valid, reason: "   " }, ["reason"]],
          [{ ...valid, reason: undefined }, ["reason"]],
          [{ ...valid, reason: "x".repeat(501) }, ["reason"]],
          [{ ...valid, details: "d".repeat(5001) }, ["details"]],
          [{ ...valid, safeguarding: "yes" }, ["safeguarding"]],
          [{ target_type: "thing", target_id: -1, reason: " " }, ["reason", "target_id", "target_type"]]
        ]
        // Raw: bodies the client's schemas would refuse to send.
        for (const [body, fields] of cases) {
          const res = yield* rawCall("POST", REPORTS, member.headers, body)
          assert.strictEqual(res.status, 422, `${JSON.stringify(body).slice(0, 80)}: ${res.text}`)
          assert.strictEqual(codeOf(res.body), "VALIDATION_ERROR")
          assert.deepStrictEqual(fieldsOf(res.body), fields, JSON.stringify(body).slice(0, 80))
        }
        const self = yield* report(member, { target_type: "user", target_id: member.id }).pipe(
          expectError(422, "VALIDATION_ERROR")
        )
        assert.deepStrictEqual(self.fields, ["target_id"])
        assert.strictEqual(yield* reportsBy(member), 0)

        // The limits are code points: 500 emoji (1000 UTF-16 units) and 5000 characters of details are fine.
        const long = yield* reportOk(member, {
          target_type: "user",
          target_id: other.id,
          reason: "😠".repeat(500)
        })
        assert.strictEqual([...long.reason].length, 500)
        const detailed = yield* member.client.reports.create({
          payload: { target_type: "user", target_id: other.id, reason: "Rude", details: "é".repeat(5000) }
        }).pipe(expectOk)
        assert.strictEqual(detailed.data.details?.length, 5000)
      }))

    it.effect("anonymous → 401; a visiting super-admin → 403; nothing is written", () =>
      Effect.gen(function*() {
        const { other, tenant, visitor } = yield* community({ signIn: "token" })
        const payload = { target_type: "user", target_id: other.id, reason: "Rude" } as const
        yield* visitor.client.reports.create({ payload }).pipe(expectError(401, "AUTH_REQUIRED"))
        const visiting = yield* apiClient(yield* authHeaders(yield* makeSuperAdmin(), tenant))
        yield* visiting.reports.create({ payload: { ...payload, safeguarding: true } }).pipe(
          expectError(403, "FORBIDDEN")
        )
        assert.deepStrictEqual(yield* outboxOf(tenant, "SafeguardingFlagRaised"), [])
        const rows = yield* Effect.flatMap(SqlClient.SqlClient, (sql) =>
          sql<{ n: number }>`SELECT count(*)::int AS n FROM member_reports WHERE tenant_id = ${tenant.id}`).pipe(
            Effect.orDie
          )
        assert.strictEqual(rows[0]!.n, 0)
      }))
  })
})
