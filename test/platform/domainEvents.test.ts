import { assert, describe, it } from "@effect/vitest"
import { DomainEvent, DomainEvents } from "@timebank/domain"
import { decodeOutboxRow, outboxRow } from "@timebank/server"
import { Arbitrary, Either, FastCheck } from "effect"

/** JSON keeps every number but NaN, ±Infinity and -0, which no event carries. */
const jsonSafe = (value: unknown): boolean =>
  typeof value === "number"
    ? Number.isFinite(value) && !Object.is(value, -0)
    : typeof value === "object" && value !== null
    ? Object.values(value).every(jsonSafe)
    : true

/** The row the outbox writes for `event`, read back as the publisher reads it (jsonb parsed by the driver). */
const stored = (event: DomainEvent) => {
  const row = outboxRow(event)
  return { event_type: row.type, payload: JSON.parse(row.payload) as unknown }
}

describe("domain events in outbox rows", () => {
  it("every event survives the trip through a row: the tag in event_type, the fields in payload", () => {
    FastCheck.assert(
      FastCheck.property(Arbitrary.make(DomainEvent).filter(jsonSafe), (event) => {
        const row = stored(event)
        assert.strictEqual(row.event_type, event._tag)
        assert.notProperty(row.payload, "_tag")
        assert.deepStrictEqual(decodeOutboxRow(row), Either.right(event))
      }),
      { numRuns: 500 }
    )
  })

  it("writes the payload with exactly the event's fields, optional ones left out when absent", () => {
    const event = new DomainEvents.CommunityEventUpdated({
      event_id: 1,
      user_id: 2,
      changed: [],
      fields: ["series_id"],
      updated_by: 3,
      previous_series_id: null
    })
    assert.deepStrictEqual(stored(event).payload, {
      event_id: 1,
      user_id: 2,
      changed: [],
      fields: ["series_id"],
      updated_by: 3,
      previous_series_id: null
    })
  })

  it("refuses a row of an unknown type, a payload that is not an object, and a field of the wrong type", () => {
    assert.deepStrictEqual(
      decodeOutboxRow({ event_type: "NoSuchEvent", payload: {} }),
      Either.left("unknown event type \"NoSuchEvent\"")
    )
    assert.isTrue(Either.isLeft(decodeOutboxRow({ event_type: "UserErased", payload: [1, 2] })))
    const wrong = decodeOutboxRow({ event_type: "UserErased", payload: { user_id: "7", erased_by: 1 } })
    assert.isTrue(Either.isLeft(wrong))
    assert.include(Either.getLeft(wrong).pipe((l) => l._tag === "Some" ? l.value : ""), "user_id")
  })

  it("ignores payload keys an event does not name (a newer writer may add some)", () => {
    const read = decodeOutboxRow({ event_type: "UserErased", payload: { user_id: 7, erased_by: 1, extra: true } })
    assert.deepStrictEqual(read, Either.right(new DomainEvents.UserErased({ user_id: 7, erased_by: 1 })))
  })
})
