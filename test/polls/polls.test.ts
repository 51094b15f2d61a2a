import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { CurrentTenant, PollId } from "@timebank/domain"
import { PollsService } from "@timebank/server"
import { Effect } from "effect"
import { codeOf, sortedFieldsOf as fieldsOf } from "../fixtures/bodies.js"
import { type ApiClient, apiClient, expectError, expectOk } from "../fixtures/client.js"
import { community } from "../fixtures/community.js"
import { outboxOf, rawCall } from "../fixtures/events.js"
import { TestApp } from "../fixtures/TestApp.js"
import { authHeaders, makeSuperAdmin, type TestUser } from "../fixtures/users.js"

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

const createPoll = (
  client: ApiClient,
  question = "Which day suits?",
  options: ReadonlyArray<string> = ["Monday", "Tuesday", "Wednesday"]
) => Effect.map(client.polls.create({ payload: { question, options } }).pipe(expectOk), (res) => res.data)

const vote = (client: ApiClient, pollId: number, optionId: number) =>
  client.polls.vote({ path: { id: PollId.make(pollId) }, payload: { option_id: optionId } })

const getPoll = (client: ApiClient, pollId: number) =>
  Effect.map(client.polls.get({ path: { id: PollId.make(pollId) } }).pipe(expectOk), (res) => res.data)

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
        const { member, tenant } = yield* community()
        // Raw: untrimmed text, which the client does not send, and the exact body on the wire.
        const res = yield* rawCall("POST", POLLS, member.headers, {
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
        const got = yield* member.client.polls.get({ path: { id: PollId.make(poll.id) } })
        assert.deepStrictEqual(got.data.options.map((o) => o.label), ["Saturday", "Sunday", "Either"])
        assert.strictEqual(got.data.my_vote, null)
      }))

    it.effect("bad input is a 422 listing every bad field; nothing is written", () =>
      Effect.gen(function*() {
        const { member, tenant } = yield* community()
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
        // Raw: bodies the client's schemas would refuse to send.
        for (const [body, fields] of cases) {
          const res = yield* rawCall("POST", POLLS, member.headers, body)
          assert.strictEqual(res.status, 422, `${JSON.stringify(body)}: ${res.text}`)
          assert.strictEqual(codeOf(res.body), "VALIDATION_ERROR")
          assert.deepStrictEqual(fieldsOf(res.body), fields, JSON.stringify(body))
        }
        // 20 options of 200 characters and a 500-character question are the limits, not beyond them.
        const max = yield* createPoll(
          member.client,
          "q".repeat(500),
          Array.from({ length: 20 }, (_, i) => `${i}`.padEnd(200, "x"))
        )
        assert.strictEqual(max.options.length, 20)
        assert.strictEqual((yield* outboxOf(tenant, "PollCreated")).length, 1)
      }))

    it.effect("anonymous → 401; a super-admin visiting the community → 403; polls off → 403 FEATURE_DISABLED", () =>
      Effect.gen(function*() {
        const { tenant, visitor } = yield* community()
        const payload = { question: "Q", options: ["a", "b"] }
        yield* visitor.client.polls.create({ payload }).pipe(expectError(401, "AUTH_REQUIRED"))
        const visiting = yield* apiClient(yield* authHeaders(yield* makeSuperAdmin(), tenant))
        yield* visiting.polls.create({ payload }).pipe(expectError(403, "FORBIDDEN"))

        const off = yield* community({ features: { polls: false } })
        yield* off.member.client.polls.create({ payload }).pipe(expectError(403, "FEATURE_DISABLED"))
        assert.deepStrictEqual(yield* outboxOf(tenant, "PollCreated"), [])
        assert.deepStrictEqual(yield* outboxOf(off.tenant, "PollCreated"), [])
      }))
  })

  describe("read", () => {
    it.effect("GET: any signed-in member; my_vote is the caller's; other tenant, unknown and bad ids → 404", () =>
      Effect.gen(function*() {
        const { admin, member, other, visitor } = yield* community()
        const poll = yield* createPoll(member.client)
        const tuesday = poll.options[1]!.id
        yield* vote(other.client, poll.id, tuesday).pipe(expectOk)

        const mine = yield* getPoll(member.client, poll.id)
        assert.strictEqual(mine.my_vote, null)
        assert.strictEqual(mine.total_votes, 1)
        assert.deepStrictEqual(mine.options.map((o) => o.votes), [0, 1, 0])
        const theirs = yield* getPoll(other.client, poll.id)
        assert.strictEqual(theirs.my_vote, tuesday)
        yield* getPoll(admin.client, poll.id)

        yield* visitor.client.polls.get({ path: { id: poll.id } }).pipe(expectError(401, "AUTH_REQUIRED"))

        const elsewhere = yield* community()
        for (const id of [poll.id, PollId.make(999999999)]) {
          yield* elsewhere.member.client.polls.get({ path: { id } }).pipe(expectError(404, "NOT_FOUND"))
        }
        // Raw: ids that are not record ids cannot be written by the client.
        for (const path of [`${POLLS}/abc`, `${POLLS}/0`]) {
          const res = yield* rawCall("GET", path, elsewhere.member.headers)
          assert.strictEqual(res.status, 404, `${path}: ${res.text}`)
          assert.strictEqual(codeOf(res.body), "NOT_FOUND")
        }
        const off = yield* community({ features: { polls: false } })
        yield* off.member.client.polls.get({ path: { id: poll.id } }).pipe(expectError(403, "FEATURE_DISABLED"))
      }))
  })

  describe("vote", () => {
    it.effect("a vote counts; voting again moves it (one vote per member); counts come per option", () =>
      Effect.gen(function*() {
        const { member, other } = yield* community()
        const poll = yield* createPoll(member.client)
        const [monday, tuesday, wednesday]: Array<number> = poll.options.map((o) => o.id)

        const first = (yield* vote(member.client, poll.id, monday!).pipe(expectOk)).data
        assert.deepStrictEqual(first.options.map((o) => o.votes), [1, 0, 0])
        assert.strictEqual(first.my_vote, monday)
        assert.strictEqual(first.total_votes, 1)

        const theirs = (yield* vote(other.client, poll.id, monday!).pipe(expectOk)).data
        assert.deepStrictEqual(theirs.options.map((o) => o.votes), [2, 0, 0])

        const after = (yield* vote(member.client, poll.id, wednesday!).pipe(expectOk)).data
        assert.deepStrictEqual(after.options.map((o) => o.votes), [1, 0, 1])
        assert.strictEqual(after.total_votes, 2)
        assert.strictEqual(after.my_vote, wednesday)

        // The same vote again changes nothing.
        const again = (yield* vote(member.client, poll.id, wednesday!).pipe(expectOk)).data
        assert.deepStrictEqual(again.options.map((o) => o.votes), [1, 0, 1])
        assert.deepStrictEqual(
          (yield* votesIn(poll.id)).map((v) => [Number(v.user_id), Number(v.option_id)]),
          [[member.id, wednesday], [other.id, monday]].sort((a, b) => a[0]! - b[0]!)
        )
        assert.isFalse(after.options.some((o) => o.id === tuesday && o.votes > 0))
      }))

    it.effect("an option of another poll (or tenant) → 422 option_id; the old vote stays", () =>
      Effect.gen(function*() {
        const { member, other } = yield* community()
        const poll = yield* createPoll(member.client)
        const otherPoll = yield* createPoll(other.client, "Other?", ["x", "y"])
        const elsewhere = yield* community()
        const foreign = yield* createPoll(elsewhere.member.client, "Far?", ["p", "q"])
        yield* vote(member.client, poll.id, poll.options[0]!.id).pipe(expectOk)

        for (const optionId of [otherPoll.options[0]!.id, foreign.options[1]!.id, 999999999]) {
          const failure = yield* vote(member.client, poll.id, optionId).pipe(expectError(422, "VALIDATION_ERROR"))
          assert.deepStrictEqual(failure.fields, ["option_id"])
        }
        // Raw: option ids the client's schema would refuse to send.
        for (const body of [{}, { option_id: "one" }, { option_id: -3 }, { option_id: 1.5 }]) {
          const res = yield* rawCall("POST", `${POLLS}/${poll.id}/vote`, member.headers, body)
          assert.strictEqual(res.status, 422, `${JSON.stringify(body)}: ${res.text}`)
          assert.deepStrictEqual(fieldsOf(res.body), ["option_id"])
        }
        const now = yield* getPoll(member.client, poll.id)
        assert.strictEqual(now.my_vote, poll.options[0]!.id)
        assert.strictEqual(now.total_votes, 1)
        assert.strictEqual((yield* getPoll(member.client, otherPoll.id)).total_votes, 0)
      }))

    it.effect("another tenant's poll → 404; anonymous → 401; a visiting super-admin → 403; polls off → 403", () =>
      Effect.gen(function*() {
        const { member, tenant, visitor } = yield* community()
        const poll = yield* createPoll(member.client)
        const optionId = poll.options[0]!.id
        const elsewhere = yield* community()
        yield* vote(elsewhere.member.client, poll.id, optionId).pipe(expectError(404, "NOT_FOUND"))
        yield* vote(member.client, 999999999, optionId).pipe(expectError(404, "NOT_FOUND"))
        yield* vote(visitor.client, poll.id, optionId).pipe(expectError(401, "AUTH_REQUIRED"))
        const visiting = yield* apiClient(yield* authHeaders(yield* makeSuperAdmin(), tenant))
        yield* vote(visiting, poll.id, optionId).pipe(expectError(403, "FORBIDDEN"))
        const off = yield* community({ features: { polls: false } })
        yield* vote(off.member.client, poll.id, optionId).pipe(expectError(403, "FEATURE_DISABLED"))
        assert.deepStrictEqual(yield* votesIn(poll.id), [])
      }))

    it.effect("12 members voting at once: every vote counted once", () =>
      Effect.gen(function*() {
        const { member, members: voters } = yield* community({ members: 12 })
        const poll = yield* createPoll(member.client, "Colour?", ["red", "green", "blue"])
        // Each call succeeds only with the contract's 200.
        yield* Effect.all(
          voters.map((voter, i) => vote(voter.client, poll.id, poll.options[i % 3]!.id).pipe(expectOk)),
          { concurrency: "unbounded" }
        )
        const final = yield* getPoll(member.client, poll.id)
        assert.deepStrictEqual(final.options.map((o) => o.votes), [4, 4, 4])
        assert.strictEqual(final.total_votes, 12)
      }), 90_000)
  })

  describe("ownedBy (for an event's poll_ids)", () => {
    it.effect("returns the ids that are not the user's polls in this community, in the order given", () =>
      Effect.gen(function*() {
        const { member, other } = yield* community()
        const mine = yield* createPoll(member.client)
        const mine2 = yield* createPoll(member.client, "Again?", ["a", "b"])
        const theirs = yield* createPoll(other.client, "Theirs?", ["a", "b"])
        const elsewhere = yield* community()
        const foreign = yield* createPoll(elsewhere.member.client, "Far?", ["a", "b"])

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
