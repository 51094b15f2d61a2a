import { assert, describe, it } from "@effect/vitest"
import type { RsvpStatus } from "@timebank/domain"
import {
  applyChange,
  canCheckIn,
  type Change,
  checkInCents,
  checkInWindowOpen,
  countsOf,
  decideRemoval,
  decideRsvp,
  type EventFacts,
  eventsOf,
  hasEnded,
  isEmpty,
  isEmptyPlan,
  makePlaces,
  type Places,
  planWrite,
  positionOf,
  promotions,
  type Settings,
  statusOf,
  waitersOf
} from "@timebank/server"

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const now = new Date("2026-06-01T12:00:00Z")
const at = (offset: number) => new Date(now.getTime() + offset)

const event = (overrides: Partial<EventFacts> = {}): EventFacts => ({
  id: 1,
  organiserId: 100,
  title: "Repair café",
  startTime: at(2 * HOUR),
  endTime: at(4 * HOUR),
  status: "active",
  maxAttendees: 2,
  membersOnly: false,
  ...overrides
})

const places = (rsvps: Array<[number, RsvpStatus]> = [], waitlist: Array<number> = []): Places =>
  makePlaces(rsvps, waitlist)

const on: Settings = { waitlistEnabled: true, autoPromote: true }
const member = (userId: number, choice: "going" | "interested" | "not_going" | "declined", isApproved = true) => ({
  userId,
  choice,
  isApproved
})

/** Decides and applies, failing the test on a refusal. */
const decided = (facts: EventFacts, before: Places, input: ReturnType<typeof member>, settings = on) => {
  const decision = decideRsvp(facts, before, input, settings, now)
  if (decision._tag === "Refused") throw new Error(`refused: ${decision.reason}`)
  return { ...decision, after: applyChange(before, decision.change) }
}

const refusal = (facts: EventFacts, before: Places, input: ReturnType<typeof member>, settings = on) => {
  const decision = decideRsvp(facts, before, input, settings, now)
  return decision._tag === "Refused" ? decision.reason : null
}

describe("RSVP decisions (spec RSVP table, decisions D8)", () => {
  it("going with a free place takes it; going again changes nothing", () => {
    const first = decided(event(), places(), member(1, "going"))
    assert.strictEqual(first.waitlisted, false)
    assert.deepStrictEqual(first.change.rsvps, [[1, "going"]])
    assert.deepStrictEqual(countsOf(first.after), { going: 1, interested: 0, waitlist: 0 })
    const again = decided(event(), first.after, member(1, "going"))
    assert.isTrue(isEmpty(again.change))
  })

  it("going to a full event joins the waitlist in arrival order; asking again keeps the position", () => {
    const full = places([[1, "going"], [2, "going"]])
    const third = decided(event(), full, member(3, "going"))
    assert.strictEqual(third.waitlisted, true)
    assert.deepStrictEqual(third.change.rsvps, [])
    const fourth = decided(event(), third.after, member(4, "going"))
    assert.deepStrictEqual([positionOf(fourth.after, 3), positionOf(fourth.after, 4)], [1, 2])
    const thirdAgain = decided(event(), fourth.after, member(3, "going"))
    assert.strictEqual(positionOf(thirdAgain.after, 3), 1)
    assert.deepStrictEqual(waitersOf(thirdAgain.after), [3, 4])
  })

  it("an `attended` RSVP keeps its place: it counts as going", () => {
    const before = places([[1, "attended"], [2, "going"]])
    assert.deepStrictEqual(countsOf(before), { going: 2, interested: 0, waitlist: 0 })
    assert.strictEqual(decided(event(), before, member(3, "going")).waitlisted, true)
  })

  it("full without a waitlist is refused as `full`; no capacity never fills", () => {
    const full = places([[1, "going"], [2, "going"]])
    assert.strictEqual(refusal(event(), full, member(3, "going"), { ...on, waitlistEnabled: false }), "full")
    const open = places(Array.from({ length: 500 }, (_, i): [number, RsvpStatus] => [i + 1, "going"]))
    assert.strictEqual(decided(event({ maxAttendees: null }), open, member(999, "going")).waitlisted, false)
  })

  it("interested, not_going and declined are recorded whatever the capacity", () => {
    const full = places([[1, "going"], [2, "going"]])
    for (const choice of ["interested", "not_going", "declined"] as const) {
      const result = decided(event(), full, member(3, choice))
      assert.strictEqual(statusOf(result.after, 3), choice)
      assert.strictEqual(result.waitlisted, false)
    }
  })

  it("a going member who steps back frees the place for the first waiter (auto-promote on)", () => {
    const before = places([[1, "going"], [2, "going"], [5, "interested"]], [3, 5, 4])
    for (const choice of ["interested", "not_going", "declined"] as const) {
      const result = decided(event(), before, member(1, choice))
      assert.deepStrictEqual(result.change.promoted, [3], choice)
      assert.strictEqual(statusOf(result.after, 3), "going")
      assert.strictEqual(statusOf(result.after, 1), choice)
      assert.deepStrictEqual(waitersOf(result.after), [5, 4])
      assert.deepStrictEqual([positionOf(result.after, 5), positionOf(result.after, 4)], [1, 2])
    }
  })

  it("with auto-promote off the freed place stays free and nobody moves", () => {
    const before = places([[1, "going"], [2, "going"]], [3, 4])
    const result = decided(event(), before, member(1, "not_going"), { ...on, autoPromote: false })
    assert.deepStrictEqual(result.change.promoted, [])
    assert.deepStrictEqual(waitersOf(result.after), [3, 4])
    assert.deepStrictEqual(countsOf(result.after), { going: 1, interested: 0, waitlist: 2 })
  })

  it("a waiter who answers anything but going leaves the waitlist; positions behind move up", () => {
    const before = places([[1, "going"], [2, "going"]], [3, 4, 5])
    const result = decided(event(), before, member(3, "not_going"))
    assert.deepStrictEqual(result.change.leaveWaitlist, [3])
    assert.deepStrictEqual([positionOf(result.after, 4), positionOf(result.after, 5)], [1, 2])
  })

  it("a waiter who answers going when a place is free takes it and leaves the waitlist", () => {
    const before = places([[1, "going"]], [3])
    const result = decided(event(), before, member(3, "going"), { ...on, autoPromote: false })
    assert.strictEqual(statusOf(result.after, 3), "going")
    assert.deepStrictEqual(waitersOf(result.after), [])
  })

  it("cancelled events refuse every answer; ended ones refuse going and interested only", () => {
    for (const choice of ["going", "interested", "not_going", "declined"] as const) {
      assert.strictEqual(refusal(event({ status: "cancelled" }), places(), member(1, choice)), "cancelled")
    }
    const ended = event({ startTime: at(-3 * HOUR), endTime: at(-1 * MINUTE) })
    assert.strictEqual(refusal(ended, places(), member(1, "going")), "ended")
    assert.strictEqual(refusal(ended, places(), member(1, "interested")), "ended")
    assert.strictEqual(refusal(ended, places(), member(1, "not_going")), null)
    assert.strictEqual(refusal(ended, places(), member(1, "declined")), null)
  })

  it("members-only meetings refuse members who are not approved", () => {
    const meeting = event({ membersOnly: true })
    assert.strictEqual(refusal(meeting, places(), member(1, "going", false)), "members_only")
    assert.strictEqual(refusal(meeting, places(), member(1, "interested", false)), "members_only")
    assert.strictEqual(refusal(meeting, places(), member(1, "going", true)), null)
  })

  it("an attended RSVP no longer changes", () => {
    assert.strictEqual(refusal(event(), places([[1, "attended"]]), member(1, "not_going")), "attended")
  })
})

describe("removal and promotion", () => {
  it("removing a going RSVP promotes the first waiter; removing a waiter only shortens the list", () => {
    const before = places([[1, "going"], [2, "going"]], [3, 4])
    const removal = decideRemoval(event(), before, 1, on, now)
    assert.deepStrictEqual(removal.rsvps, [[1, null], [3, "going"]])
    assert.deepStrictEqual(removal.promoted, [3])
    const waiterGone = decideRemoval(event(), before, 4, on, now)
    assert.deepStrictEqual(waiterGone, { rsvps: [], joinWaitlist: [], leaveWaitlist: [4], promoted: [] })
    assert.isTrue(isEmpty(decideRemoval(event(), before, 99, on, now)))
  })

  it("raising the capacity promotes as many waiters as there are new places, in order", () => {
    const before = places([[1, "going"], [2, "going"]], [3, 4, 5])
    const change: Change = promotions(event({ maxAttendees: 4 }), before, on, now)
    assert.deepStrictEqual(change.promoted, [3, 4])
    assert.deepStrictEqual(waitersOf(applyChange(before, change)), [5])
    assert.deepStrictEqual(promotions(event({ maxAttendees: null }), before, on, now).promoted, [3, 4, 5])
  })

  it("nobody is promoted into a cancelled or ended event", () => {
    const before = places([[1, "going"]], [3])
    assert.isTrue(isEmpty(promotions(event({ status: "cancelled" }), before, on, now)))
    assert.isTrue(isEmpty(promotions(event({ startTime: at(-2 * HOUR), endTime: at(-HOUR) }), before, on, now)))
  })
})

describe("time rules", () => {
  it("an event has ended after its end, or after its start when it has none", () => {
    assert.isFalse(hasEnded(event({ startTime: at(-HOUR), endTime: at(MINUTE) }), now))
    assert.isTrue(hasEnded(event({ startTime: at(-HOUR), endTime: at(-MINUTE) }), now))
    assert.isTrue(hasEnded(event({ startTime: at(-MINUTE), endTime: null }), now))
    assert.isFalse(hasEnded(event({ startTime: at(MINUTE), endTime: null }), now))
  })

  it("check-in opens 30 minutes before the start and closes 24 hours after the end (or start)", () => {
    const open = (startTime: Date, endTime: Date | null) => checkInWindowOpen(event({ startTime, endTime }), now)
    assert.isTrue(open(at(30 * MINUTE), at(2 * HOUR)))
    assert.isFalse(open(at(30 * MINUTE + 1), at(2 * HOUR)))
    assert.isTrue(open(at(-26 * HOUR), at(-24 * HOUR)))
    assert.isFalse(open(at(-26 * HOUR), at(-24 * HOUR - 1)))
    assert.isTrue(open(at(-24 * HOUR), null))
    assert.isFalse(open(at(-24 * HOUR - 1), null))
  })

  it("the credit is the duration clamped to [0.5, 24] hours, 0.5 without an end", () => {
    const cents = (hours: number | null) =>
      checkInCents({ startTime: now, endTime: hours === null ? null : at(hours * HOUR) })
    assert.deepStrictEqual([cents(2), cents(1.25), cents(0.1), cents(30), cents(null)], [200, 125, 50, 2400, 50])
    assert.strictEqual(cents(1 / 3), 50)
    assert.strictEqual(cents(2 + 1 / 3), 233)
  })

  it("anyone with an RSVP that is not a refusal may be checked in", () => {
    assert.deepStrictEqual(
      (["going", "interested", "invited", "attended", "not_going", "declined", undefined] as const).map(canCheckIn),
      [true, true, true, true, false, false, false]
    )
  })
})

describe("a batch of decisions as one write", () => {
  /** Decides `inputs` one after the other, as the entity does within a batch, and plans their write. */
  const batch = (before: Places, inputs: ReadonlyArray<ReturnType<typeof member> | { remove: number }>) => {
    let working = before
    const left = new Set<number>()
    const reminders = new Set<number>()
    const events: Array<ReturnType<typeof eventsOf>[number]> = []
    for (const input of inputs) {
      const change = "remove" in input
        ? decideRemoval(event(), working, input.remove, on, now)
        : decided(event(), working, input).change
      events.push(...eventsOf(event(), working, change))
      for (const userId of [...change.leaveWaitlist, ...change.promoted]) left.add(userId)
      for (const [userId, status] of change.rsvps) {
        if (status === null || status === "not_going" || status === "declined") reminders.add(userId)
      }
      working = applyChange(working, change)
    }
    return { after: working, plan: planWrite(before, working, left, reminders, events) }
  }

  it("writes each member's final RSVP once, however often it changed, with every real change as an event", () => {
    const { plan } = batch(places([[9, "interested"]]), [
      member(1, "going"),
      member(1, "not_going"),
      member(1, "going"),
      member(9, "interested"),
      member(2, "declined"),
      { remove: 9 }
    ])
    assert.deepStrictEqual(plan.upsert, [[1, "going"], [2, "declined"]])
    assert.deepStrictEqual(plan.remove, [9])
    assert.deepStrictEqual(plan.cancelReminders, [1, 2, 9])
    assert.deepStrictEqual(
      plan.events.map((e) => (e.payload as { user_id: number; from: string | null; to: string | null })).map((p) =>
        `${p.user_id}:${p.from}→${p.to}`
      ),
      ["1:null→going", "1:going→not_going", "1:not_going→going", "2:null→declined", "9:interested→null"]
    )
  })

  it("keeps the rows of those who stay queued; a member who left and joined again goes to the end", () => {
    const before = places([[1, "going"], [2, "going"]], [3, 4, 5])
    const { after, plan } = batch(before, [
      member(6, "going"),
      member(4, "not_going"),
      member(4, "going"),
      member(7, "going")
    ])
    assert.deepStrictEqual(waitersOf(after), [3, 5, 6, 4, 7])
    assert.deepStrictEqual(plan.unqueue, [4])
    // Rows of 3 and 5 keep their (smaller) ids; the new rows follow in queue order.
    assert.deepStrictEqual(plan.enqueue, [6, 4, 7])
    // Asking `going` of a full event queues the member; their earlier answer stays until a place is theirs.
    assert.deepStrictEqual(plan.upsert, [[4, "not_going"]])
  })

  it("a promotion in the batch moves the waiter's row into the RSVPs, with both events", () => {
    const before = places([[1, "going"], [2, "going"]], [3, 4])
    const { after, plan } = batch(before, [{ remove: 1 }, member(8, "going")])
    assert.deepStrictEqual(waitersOf(after), [4, 8])
    assert.deepStrictEqual(plan.remove, [1])
    assert.deepStrictEqual(plan.upsert, [[3, "going"]])
    assert.deepStrictEqual(plan.unqueue, [3])
    assert.deepStrictEqual(plan.enqueue, [8])
    assert.deepStrictEqual(plan.events.map((e) => e.type), ["RsvpChanged", "RsvpChanged", "WaitlistPromoted"])
  })

  it("a batch that changes nothing writes nothing", () => {
    const before = places([[1, "going"]], [])
    assert.isTrue(isEmptyPlan(batch(before, [member(1, "going"), { remove: 5 }]).plan))
  })
})
