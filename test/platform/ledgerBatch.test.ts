import { assert, describe, it } from "@effect/vitest"
import type { AccountRef, Move } from "@timebank/domain"
import { accountFloor, accountKey, planBatch, staysAboveFloor } from "@timebank/server"

const member = (userId: number): AccountRef => ({ _tag: "member", userId })
const treasury: AccountRef = { _tag: "treasury" }
const partner = (partnerId: number, floorCents: number): AccountRef => ({ _tag: "partner", partnerId, floorCents })

const move = (key: string, from: AccountRef, to: AccountRef, cents: number, hash = `h-${key}`): Move => ({
  idempotencyKey: key,
  requestHash: hash,
  type: "transfer",
  from,
  to,
  cents,
  description: "",
  senderId: null,
  recipientId: null,
  listingId: null,
  createdBy: null
})

const plan = (moves: Array<Move>, balances: Record<string, number>, allowMemberNegative = false) =>
  planBatch({
    moves,
    balances: new Map(Object.entries(balances)),
    earlier: new Map(),
    floor: (ref) => accountFloor(ref, { membersMayGoNegative: allowMemberNegative })
  })

describe("planBatch", () => {
  it("applies moves in order, each seeing the balances the earlier ones left", () => {
    const result = plan([
      move("a", member(1), member(2), 300),
      move("b", member(2), member(3), 500),
      move("c", member(1), member(3), 300)
    ], { "member:1": 500, "member:2": 200 })
    assert.deepStrictEqual(result.decisions.map((d) => d._tag), ["Apply", "Apply", "Insufficient"])
    assert.deepStrictEqual(Object.fromEntries(result.deltas), { "member:1": -300, "member:2": -200, "member:3": 500 })
  })

  it("the treasury may go negative; members only where the community allows it", () => {
    assert.strictEqual(plan([move("g", treasury, member(1), 1000)], {}).decisions[0]!._tag, "Apply")
    assert.strictEqual(plan([move("t", member(1), member(2), 1)], {}).decisions[0]!._tag, "Insufficient")
    assert.strictEqual(plan([move("t", member(1), member(2), 1)], {}, true).decisions[0]!._tag, "Apply")
  })

  it("a key seen before replays with the same request and conflicts with another", () => {
    const earlier = { transactionId: 9, requestHash: "h-k", createdAt: new Date(0) }
    const result = planBatch({
      moves: [move("k", member(1), member(2), 100), move("k", member(1), member(2), 100, "other")],
      balances: new Map(),
      earlier: new Map([["k", earlier]]),
      floor: () => 0
    })
    assert.deepStrictEqual(result.decisions, [{ _tag: "Replay", earlier }, { _tag: "Conflict" }])
    assert.strictEqual(result.deltas.size, 0)
  })

  it("a key repeated inside one batch takes the first move's outcome, once", () => {
    const result = plan([
      move("k", member(1), member(2), 100),
      move("k", member(1), member(2), 100),
      move("k", member(1), member(2), 999, "different")
    ], { "member:1": 150 })
    assert.deepStrictEqual(result.decisions, [{ _tag: "Apply" }, { _tag: "SameAs", index: 0 }, { _tag: "Conflict" }])
    assert.deepStrictEqual(Object.fromEntries(result.deltas), { "member:1": -100, "member:2": 100 })
  })

  it("a refused move leaves balances untouched and later moves still apply", () => {
    const result = plan([move("x", member(1), member(2), 600), move("y", member(1), member(2), 400)], {
      "member:1": 500
    })
    assert.deepStrictEqual(result.decisions.map((d) => d._tag), ["Insufficient", "Apply"])
    assert.strictEqual(accountKey(member(7)), "member:7")
    assert.strictEqual(accountKey({ _tag: "organisation", organisationId: 3 }), "organisation:3")
  })

  it("a partner's clearing account pays down to its floor and no further", () => {
    const result = plan([
      move("f1", partner(4, -10_000), member(1), 6000),
      move("f2", partner(4, -10_000), member(2), 4000),
      move("f3", partner(4, -10_000), member(3), 1)
    ], {})
    assert.deepStrictEqual(result.decisions.map((d) => d._tag), ["Apply", "Apply", "Insufficient"])
    assert.deepStrictEqual(Object.fromEntries(result.deltas), {
      "partner:4": -10_000,
      "member:1": 6000,
      "member:2": 4000
    })
    assert.strictEqual(accountKey(partner(4, -10_000)), "partner:4")
  })

  it("a partner's balance counts what it received back; a floor of 0 allows no credit", () => {
    const refunded = plan([
      move("r", member(1), partner(4, -500), 300),
      move("f", partner(4, -500), member(2), 800)
    ], { "member:1": 300 })
    assert.deepStrictEqual(refunded.decisions.map((d) => d._tag), ["Apply", "Apply"])
    assert.strictEqual(plan([move("z", partner(5, 0), member(1), 1)], {}).decisions[0]!._tag, "Insufficient")
  })

  it("each kind of account has its floor", () => {
    assert.strictEqual(accountFloor(treasury, { membersMayGoNegative: false }), null)
    assert.strictEqual(accountFloor(member(1), { membersMayGoNegative: false }), 0)
    assert.strictEqual(accountFloor(member(1), { membersMayGoNegative: true }), null)
    assert.strictEqual(accountFloor({ _tag: "organisation", organisationId: 2 }, { membersMayGoNegative: true }), 0)
    assert.strictEqual(accountFloor(partner(3, -250), { membersMayGoNegative: false }), -250)
    assert.isTrue(staysAboveFloor(0, 250, -250))
    assert.isFalse(staysAboveFloor(0, 251, -250))
    assert.isTrue(staysAboveFloor(-1_000_000, 5, null))
    assert.isFalse(staysAboveFloor(100, 101, 0))
  })
})
