import { assert, describe, it } from "@effect/vitest"
import { DomainEvents } from "@timebank/domain"
import { decodeOutboxRow } from "@timebank/server"
import { Either } from "effect"

/** Payloads as rows written before the names and recipients for notifications were added. */
const stored = {
  VolOpportunityCreated: { opportunity_id: 1, organisation_id: 2, title: "Sort", status: "open", created_by: 3 },
  VolApplicationReviewed: {
    application_id: 1,
    opportunity_id: 2,
    organisation_id: 3,
    user_id: 4,
    status: "approved",
    reviewed_by: 5
  },
  VolHoursReviewed: {
    hour_log_id: 1,
    organisation_id: 2,
    user_id: 3,
    hours: 1.5,
    status: "approved",
    payment_status: "paid",
    reviewed_by: 4
  },
  ReviewCreated: { review_id: 1, reviewer_id: 2, target_type: "user", target_id: 3, rating: 5 }
} as const

describe("volunteering events carry names and recipients for notifications", () => {
  it("rows stored before the fields were added still decode, without them", () => {
    for (const [event_type, payload] of Object.entries(stored)) {
      const decoded = decodeOutboxRow({ event_type, payload })
      assert.isTrue(Either.isRight(decoded), `${event_type}: ${JSON.stringify(decoded)}`)
      const event = Either.getOrThrow(decoded)
      assert.strictEqual(event._tag, event_type)
      assert.notProperty(event, "organisation_name")
      assert.notProperty(event, "opportunity_title")
      assert.notProperty(event, "target_name")
      assert.notProperty(event, "notify_user_ids")
    }
  })

  it("rows with the fields decode to them; a field of the wrong type is refused", () => {
    const review = decodeOutboxRow({
      event_type: "ReviewCreated",
      payload: { ...stored.ReviewCreated, target_name: "Otto Other", notify_user_ids: [3] }
    })
    assert.deepStrictEqual(
      review,
      Either.right(
        new DomainEvents.ReviewCreated({ ...stored.ReviewCreated, target_name: "Otto Other", notify_user_ids: [3] })
      )
    )
    const application = decodeOutboxRow({
      event_type: "VolApplicationReviewed",
      payload: { ...stored.VolApplicationReviewed, opportunity_title: "Sort", organisation_name: "Food bank" }
    })
    assert.deepStrictEqual(
      application,
      Either.right(
        new DomainEvents.VolApplicationReviewed({
          ...stored.VolApplicationReviewed,
          opportunity_title: "Sort",
          organisation_name: "Food bank"
        })
      )
    )
    assert.isTrue(Either.isLeft(decodeOutboxRow({
      event_type: "VolHoursReviewed",
      payload: { ...stored.VolHoursReviewed, organisation_name: 7 }
    })))
    assert.isTrue(Either.isLeft(decodeOutboxRow({
      event_type: "ReviewCreated",
      payload: { ...stored.ReviewCreated, notify_user_ids: ["3"] }
    })))
  })
})
