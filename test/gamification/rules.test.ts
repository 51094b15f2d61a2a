import { assert, describe, it } from "@effect/vitest"
import { DomainEvents } from "@timebank/domain"
import { BASE_POINTS, entriesOf, levelOf, levelStart, multiplierAt, pointsOf, progressOf } from "@timebank/server"

const at = (iso: string) => new Date(iso)

const campaign = (overrides: Partial<Parameters<typeof multiplierAt>[0][number]> = {}) => ({
  startsAt: at("2030-01-01T00:00:00Z"),
  endsAt: at("2030-01-02T00:00:00Z"),
  multiplier: 2,
  appliesTo: ["transfer_sent"],
  isActive: true,
  ...overrides
})

describe("levels", () => {
  it("start at 1 and need 100 · (n − 1)² points", () => {
    const cases: Array<[number, number]> = [
      [0, 1],
      [99, 1],
      [100, 2],
      [399, 2],
      [400, 3],
      [899, 3],
      [900, 4],
      [10_000, 11],
      [9_999, 10],
      [-5, 1]
    ]
    for (const [xp, level] of cases) assert.strictEqual(levelOf(xp), level, `${xp} points`)
    assert.deepStrictEqual([1, 2, 3, 4].map(levelStart), [0, 100, 400, 900])
  })

  it("name the points at which the next level starts", () => {
    assert.deepStrictEqual(progressOf(0), { level: 1, next_level_xp: 100 })
    assert.deepStrictEqual(progressOf(150), { level: 2, next_level_xp: 400 })
    assert.deepStrictEqual(progressOf(400), { level: 3, next_level_xp: 900 })
  })

  it("are exact at every boundary up to level 1000", () => {
    for (let level = 1; level <= 1000; level++) {
      assert.strictEqual(levelOf(levelStart(level)), level)
      if (level > 1) assert.strictEqual(levelOf(levelStart(level) - 1), level - 1)
    }
  })
})

describe("campaign multiplier", () => {
  it("applies inside the window [starts_at, ends_at) only", () => {
    const campaigns = [campaign()]
    assert.strictEqual(multiplierAt(campaigns, "transfer_sent", at("2029-12-31T23:59:59.999Z")), 1)
    assert.strictEqual(multiplierAt(campaigns, "transfer_sent", at("2030-01-01T00:00:00Z")), 2)
    assert.strictEqual(multiplierAt(campaigns, "transfer_sent", at("2030-01-01T12:00:00Z")), 2)
    assert.strictEqual(multiplierAt(campaigns, "transfer_sent", at("2030-01-02T00:00:00Z")), 1)
  })

  it("covers only its event types and only while active", () => {
    const inside = at("2030-01-01T12:00:00Z")
    assert.strictEqual(multiplierAt([campaign()], "review_given", inside), 1)
    assert.strictEqual(multiplierAt([campaign({ isActive: false })], "transfer_sent", inside), 1)
    assert.strictEqual(multiplierAt([], "transfer_sent", inside), 1)
  })

  it("takes the highest of overlapping campaigns, without compounding", () => {
    const inside = at("2030-01-01T12:00:00Z")
    const campaigns = [campaign({ multiplier: 2 }), campaign({ multiplier: 3.5 }), campaign({ multiplier: 1.5 })]
    assert.strictEqual(multiplierAt(campaigns, "transfer_sent", inside), 3.5)
    assert.strictEqual(pointsOf({ userId: 1, event: "transfer_sent", quantity: 1 }, 3.5), 35)
    assert.strictEqual(pointsOf({ userId: 1, event: "hours_volunteered", quantity: 1.25 }, 1), 13)
    assert.strictEqual(BASE_POINTS.transfer_sent, 10)
  })
})

describe("points from domain events", () => {
  const transaction = (type: "transfer" | "grant", sender: number | null) =>
    new DomainEvents.TransactionCompleted({
      transaction_id: 1,
      type,
      amount: 2,
      sender_id: sender,
      recipient_id: 7,
      listing_id: null,
      description: ""
    })

  it("a member-to-member transfer counts for both sides; the community's own credits do not", () => {
    assert.deepStrictEqual(entriesOf(transaction("transfer", 3)), [
      { userId: 3, event: "transfer_sent", quantity: 1 },
      { userId: 7, event: "transfer_received", quantity: 1 }
    ])
    assert.deepStrictEqual(entriesOf(transaction("grant", null)), [])
  })

  it("approved hours count in hours; declined ones and partners' reviews count nothing", () => {
    const hours = (status: string) =>
      new DomainEvents.VolHoursReviewed({
        hour_log_id: 1,
        organisation_id: 2,
        user_id: 3,
        hours: 2.5,
        status,
        payment_status: "none",
        reviewed_by: 4
      })
    assert.deepStrictEqual(entriesOf(hours("approved")), [{ userId: 3, event: "hours_volunteered", quantity: 2.5 }])
    assert.deepStrictEqual(entriesOf(hours("declined")), [])
    const review = (reviewer: number | null) =>
      new DomainEvents.ReviewCreated({
        review_id: 1,
        reviewer_id: reviewer,
        target_type: "user",
        target_id: 2,
        rating: 5
      })
    assert.deepStrictEqual(entriesOf(review(null)), [])
    assert.deepStrictEqual(entriesOf(review(9)), [{ userId: 9, event: "review_given", quantity: 1 }])
  })
})
