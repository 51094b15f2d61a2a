import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { CurrentTenant, PollId, type Tenant } from "@timebank/domain"
import { PollsService } from "@timebank/server"
import { Effect } from "effect"
import { codeOf, sortedFieldsOf as fieldsOf } from "./fixtures/bodies.js"
import { community } from "./fixtures/community.js"
import { apiClient, rawRequest, TestApp } from "./fixtures/TestApp.js"
import { authHeaders, makeSuperAdmin, makeUser, type TestUser } from "./fixtures/users.js"

interface PollView {
  id: number
  question: string
  user_id: number
  options: Array<{ id: number; label: string; votes: number }>
  total_votes: number
  my_vote: number | null
  created_at: string
}
const pollOf = (body: unknown) => (body as { data: PollView }).data

const POLLS = "/api/v2/polls"
type Headers = Record<string, string>

const call = (method: "GET" | "POST", path: string, headers: Headers, body?: unknown) =>
  rawRequest(method, path, { headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })

const createPoll = (headers: Headers, question = "Which day suits?", options = ["Monday", "Tuesday", "Wednesday"]) =>
  Effect.map(call("POST", POLLS, headers, { question, options }), (res) => {
    assert.strictEqual(res.status, 201, res.text)
    return pollOf(res.body)
  })

const vote = (headers: Headers, pollId: number, optionId: number) =>
  call("POST", `${POLLS}/${pollId}/vote`, headers, { option_id: optionId })

const outboxOf = (tenant: Tenant, type: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ payload: Record<string, unknown> }>`
      SELECT payload FROM outbox_events WHERE tenant_id = ${tenant.id} AND event_type = ${type} ORDER BY id`.pipe(
      Effect.map((rows) => rows.map((r) => r.payload))
    ))

const votesIn = (pollId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ user_id: string; option_id: string }>`
      SELECT user_id, option_id FROM poll_votes WHERE poll_id = ${pollId} ORDER BY user_id`)

const ownedBy = (user: TestUser, ids: ReadonlyArray<number>) =>
  Effect.flatMap(PollsService, (polls) => polls.ownedBy(ids, user.id)).pipe(
    Effect.provideService(CurrentTenant, user.tenant),
    Effect.provide(PollsService.Default)
  )

layer(TestApp(), { excludeTestServices: true, timeout: "120 seconds" })("polls", (it) => {
  describe("create", () => {
    it.effect("POST creates a poll (201) with options in order, no votes, PollCreated; GET reads it back", () =>
      Effect.gen(function*() {
        const { member, memberHeaders, tenant } = yield* community()
        const res = yield* call("POST", POLLS, memberHeaders, {
          question: "  Which day suits the repair café?  ",
          options: [" Saturday ", "Sunday", "Either"]
        })
        assert.strictEqual(res.status, 201, res.text)
        const poll = pollOf(res.body)
        assert.deepStrictEqual(res.body, {
          data: {
            id: poll.id,
            question: "Which day suits the repair café?",
            user_id: member.id,
            options: [
              { id: poll.options[0]!.id, label: "Saturday", votes: 0 },
              { id: poll.options[1]!.id, label: "Sunday", votes: 0 },
              { id: poll.options[2]!.id, label: "Either", votes: 0 }
            ],
            total_votes: 0,
            my_vote: null,
            created_at: poll.created_at
          },
          meta: {}
        })
        assert.match(poll.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/)
        assert.deepStrictEqual(yield* outboxOf(tenant, "PollCreated"), [{
          poll_id: poll.id,
          user_id: member.id,
          question: "Which day suits the repair café?",
          options: ["Saturday", "Sunday", "Either"]
        }])

        // The typed client decodes the same shape.
        const client = yield* apiClient(memberHeaders)
        const got = yield* client.polls.get({ path: { id: PollId.make(poll.id) } })
        assert.deepStrictEqual(got.data.options.map((o) => o.label), ["Saturday", "Sunday", "Either"])
        assert.strictEqual(got.data.my_vote, null)
      }))

    it.effect("bad input is a 422 listing every bad field; nothing is written", () =>
      Effect.gen(function*() {
        const { memberHeaders, tenant } = yield* community()
        const cases: Array<[unknown, Array<string>]> = [
          [{ question: "", options: ["a", "b"] }, ["question"]],
          [{ question: "x".repeat(501), options: ["a", "b"] }, ["question"]],
          [{ question: "Q", options: ["only one"] }, ["options"]],
          [{ question: "Q", options: Array.from({ length: 21 }, (_, i) => `o${i}`) }, ["options"]],
          [{ question: "Q", options: ["Yes", " yes "] }, ["options"]],
          [{ question: "Q", options: ["a", "  "] }, ["options.1"]],
          [{ question: "Q", options: ["a", "b".repeat(201)] }, ["options.1"]],
          [{ question: "Q", options: ["a", 7] }, ["options.1"]],
          [{ options: ["a", "b"] }, ["question"]],
          [{ question: " ", options: "a,b" }, ["options", "question"]]
        ]
        for (const [body, fields] of cases) {
          const res = yield* call("POST", POLLS, memberHeaders, body)
          assert.strictEqual(res.status, 422, `${JSON.stringify(body)}: ${res.text}`)
          assert.strictEqual(codeOf(res.body), "VALIDATION_ERROR")
          assert.deepStrictEqual(fieldsOf(res.body), fields, JSON.stringify(body))
        }
        // 20 options of 200 characters and a 500-character question are the limits, not beyond them.
        const max = yield* createPoll(
          memberHeaders,
          "q".repeat(500),
          Array.from({ length: 20 }, (_, i) => `${i}`.padEnd(200, "x"))
        )
        assert.strictEqual(max.options.length, 20)
        assert.strictEqual((yield* outboxOf(tenant, "PollCreated")).length, 1)
      }))

    it.effect("anonymous → 401; a super-admin visiting the community → 403; polls off → 403 FEATURE_DISABLED", () =>
      Effect.gen(function*() {
        const { anonymous, tenant } = yield* community()
        const body = { question: "Q", options: ["a", "b"] }
        const anon = yield* call("POST", POLLS, anonymous, body)
        assert.strictEqual(anon.status, 401, anon.text)
        assert.strictEqual(codeOf(anon.body), "AUTH_REQUIRED")
        const visiting = yield* call("POST", POLLS, yield* authHeaders(yield* makeSuperAdmin(), tenant), body)
        assert.strictEqual(visiting.status, 403, visiting.text)
        assert.strictEqual(codeOf(visiting.body), "FORBIDDEN")

        const off = yield* community({ features: { polls: false } })
        const disabled = yield* call("POST", POLLS, off.memberHeaders, body)
        assert.strictEqual(disabled.status, 403, disabled.text)
        assert.strictEqual(codeOf(disabled.body), "FEATURE_DISABLED")
        assert.deepStrictEqual(yield* outboxOf(tenant, "PollCreated"), [])
        assert.deepStrictEqual(yield* outboxOf(off.tenant, "PollCreated"), [])
      }))
  })

  describe("read", () => {
    it.effect("GET: any signed-in member; my_vote is the caller's; other tenant, unknown and bad ids → 404", () =>
      Effect.gen(function*() {
        const { adminHeaders, anonymous, memberHeaders, otherHeaders } = yield* community()
        const poll = yield* createPoll(memberHeaders)
        const tuesday = poll.options[1]!.id
        assert.strictEqual((yield* vote(otherHeaders, poll.id, tuesday)).status, 200)

        const mine = pollOf((yield* call("GET", `${POLLS}/${poll.id}`, memberHeaders)).body)
        assert.strictEqual(mine.my_vote, null)
        assert.strictEqual(mine.total_votes, 1)
        assert.deepStrictEqual(mine.options.map((o) => o.votes), [0, 1, 0])
        const theirs = pollOf((yield* call("GET", `${POLLS}/${poll.id}`, otherHeaders)).body)
        assert.strictEqual(theirs.my_vote, tuesday)
        const admins = yield* call("GET", `${POLLS}/${poll.id}`, adminHeaders)
        assert.strictEqual(admins.status, 200, admins.text)

        const anon = yield* call("GET", `${POLLS}/${poll.id}`, anonymous)
        assert.strictEqual(anon.status, 401)

        const elsewhere = yield* community()
        for (const path of [`${POLLS}/${poll.id}`, `${POLLS}/999999999`, `${POLLS}/abc`, `${POLLS}/0`]) {
          const res = yield* call("GET", path, elsewhere.memberHeaders)
          assert.strictEqual(res.status, 404, `${path}: ${res.text}`)
          assert.strictEqual(codeOf(res.body), "NOT_FOUND")
        }
        const off = yield* community({ features: { polls: false } })
        const disabled = yield* call("GET", `${POLLS}/${poll.id}`, off.memberHeaders)
        assert.strictEqual(disabled.status, 403)
        assert.strictEqual(codeOf(disabled.body), "FEATURE_DISABLED")
      }))
  })

  describe("vote", () => {
    it.effect("a vote counts; voting again moves it (one vote per member); counts come per option", () =>
      Effect.gen(function*() {
        const { member, memberHeaders, other, otherHeaders } = yield* community()
        const poll = yield* createPoll(memberHeaders)
        const [monday, tuesday, wednesday] = poll.options.map((o) => o.id) as [number, number, number]

        const first = yield* vote(memberHeaders, poll.id, monday)
        assert.strictEqual(first.status, 200, first.text)
        assert.deepStrictEqual(pollOf(first.body).options.map((o) => o.votes), [1, 0, 0])
        assert.strictEqual(pollOf(first.body).my_vote, monday)
        assert.strictEqual(pollOf(first.body).total_votes, 1)

        const theirs = yield* vote(otherHeaders, poll.id, monday)
        assert.deepStrictEqual(pollOf(theirs.body).options.map((o) => o.votes), [2, 0, 0])

        const changed = yield* vote(memberHeaders, poll.id, wednesday)
        assert.strictEqual(changed.status, 200, changed.text)
        const after = pollOf(changed.body)
        assert.deepStrictEqual(after.options.map((o) => o.votes), [1, 0, 1])
        assert.strictEqual(after.total_votes, 2)
        assert.strictEqual(after.my_vote, wednesday)

        // The same vote again changes nothing.
        const again = pollOf((yield* vote(memberHeaders, poll.id, wednesday)).body)
        assert.deepStrictEqual(again.options.map((o) => o.votes), [1, 0, 1])
        assert.deepStrictEqual(
          (yield* votesIn(poll.id)).map((v) => [Number(v.user_id), Number(v.option_id)]),
          [[member.id, wednesday], [other.id, monday]].sort((a, b) => a[0]! - b[0]!)
        )
        assert.isFalse(after.options.some((o) => o.id === tuesday && o.votes > 0))
      }))

    it.effect("an option of another poll (or tenant) → 422 option_id; the old vote stays", () =>
      Effect.gen(function*() {
        const { memberHeaders, otherHeaders } = yield* community()
        const poll = yield* createPoll(memberHeaders)
        const otherPoll = yield* createPoll(otherHeaders, "Other?", ["x", "y"])
        const elsewhere = yield* community()
        const foreign = yield* createPoll(elsewhere.memberHeaders, "Far?", ["p", "q"])
        assert.strictEqual((yield* vote(memberHeaders, poll.id, poll.options[0]!.id)).status, 200)

        for (const optionId of [otherPoll.options[0]!.id, foreign.options[1]!.id, 999999999]) {
          const res = yield* vote(memberHeaders, poll.id, optionId)
          assert.strictEqual(res.status, 422, res.text)
          assert.strictEqual(codeOf(res.body), "VALIDATION_ERROR")
          assert.deepStrictEqual(fieldsOf(res.body), ["option_id"])
        }
        for (const body of [{}, { option_id: "one" }, { option_id: -3 }, { option_id: 1.5 }]) {
          const res = yield* call("POST", `${POLLS}/${poll.id}/vote`, memberHeaders, body)
          assert.strictEqual(res.status, 422, `${JSON.stringify(body)}: ${res.text}`)
          assert.deepStrictEqual(fieldsOf(res.body), ["option_id"])
        }
        const now = pollOf((yield* call("GET", `${POLLS}/${poll.id}`, memberHeaders)).body)
        assert.strictEqual(now.my_vote, poll.options[0]!.id)
        assert.strictEqual(now.total_votes, 1)
        assert.strictEqual(pollOf((yield* call("GET", `${POLLS}/${otherPoll.id}`, memberHeaders)).body).total_votes, 0)
      }))

    it.effect("another tenant's poll → 404; anonymous → 401; a visiting super-admin → 403; polls off → 403", () =>
      Effect.gen(function*() {
        const { anonymous, memberHeaders, tenant } = yield* community()
        const poll = yield* createPoll(memberHeaders)
        const optionId = poll.options[0]!.id
        const elsewhere = yield* community()
        const foreign = yield* vote(elsewhere.memberHeaders, poll.id, optionId)
        assert.strictEqual(foreign.status, 404, foreign.text)
        assert.strictEqual(codeOf(foreign.body), "NOT_FOUND")
        assert.strictEqual((yield* vote(memberHeaders, 999999999, optionId)).status, 404)
        assert.strictEqual((yield* vote(anonymous, poll.id, optionId)).status, 401)
        const visiting = yield* vote(yield* authHeaders(yield* makeSuperAdmin(), tenant), poll.id, optionId)
        assert.strictEqual(visiting.status, 403, visiting.text)
        assert.strictEqual(codeOf(visiting.body), "FORBIDDEN")
        const off = yield* community({ features: { polls: false } })
        const disabled = yield* vote(off.memberHeaders, poll.id, optionId)
        assert.strictEqual(disabled.status, 403)
        assert.strictEqual(codeOf(disabled.body), "FEATURE_DISABLED")
        assert.deepStrictEqual(yield* votesIn(poll.id), [])
      }))

    it.effect("12 members voting at once: every vote counted once", () =>
      Effect.gen(function*() {
        const { memberHeaders, tenant } = yield* community()
        const poll = yield* createPoll(memberHeaders, "Colour?", ["red", "green", "blue"])
        const voters = yield* Effect.all(
          Array.from({ length: 12 }, () => Effect.flatMap(makeUser(tenant), authHeaders)),
          { concurrency: 4 }
        )
        const results = yield* Effect.all(
          voters.map((headers, i) => vote(headers, poll.id, poll.options[i % 3]!.id)),
          { concurrency: "unbounded" }
        )
        assert.deepStrictEqual(results.map((r) => r.status), voters.map(() => 200))
        const final = pollOf((yield* call("GET", `${POLLS}/${poll.id}`, memberHeaders)).body)
        assert.deepStrictEqual(final.options.map((o) => o.votes), [4, 4, 4])
        assert.strictEqual(final.total_votes, 12)
      }), 90_000)
  })

  describe("ownedBy (for an event's poll_ids)", () => {
    it.effect("returns the ids that are not the user's polls in this community, in the order given", () =>
      Effect.gen(function*() {
        const { member, memberHeaders, otherHeaders } = yield* community()
        const mine = yield* createPoll(memberHeaders)
        const mine2 = yield* createPoll(memberHeaders, "Again?", ["a", "b"])
        const theirs = yield* createPoll(otherHeaders, "Theirs?", ["a", "b"])
        const elsewhere = yield* community()
        const foreign = yield* createPoll(elsewhere.memberHeaders, "Far?", ["a", "b"])

        assert.deepStrictEqual(yield* ownedBy(member, []), [])
        assert.deepStrictEqual(yield* ownedBy(member, [mine.id, mine2.id]), [])
        assert.deepStrictEqual(
          yield* ownedBy(member, [foreign.id, mine.id, theirs.id, 999999999, mine2.id]),
          [foreign.id, theirs.id, 999999999]
        )
        // The same poll ids from the other community's point of view.
        assert.deepStrictEqual(yield* ownedBy(elsewhere.member, [foreign.id, mine.id]), [mine.id])
      }))
  })
})
