import { assert, describe, it } from "@effect/vitest"
import { Waitlist } from "@timebank/server"

/** A small seeded PRNG (mulberry32), so a failure replays. */
const prng = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

describe("the persistent waitlist", () => {
  it("answers as a plain array of user ids would, through thousands of joins and leaves", () => {
    const random = prng(7)
    let model: Array<number> = []
    let waitlist = Waitlist.waitlistOf([])
    for (let step = 0; step < 5_000; step++) {
      const userId = 1 + Math.floor(random() * 300)
      if (random() < 0.6) {
        waitlist = Waitlist.join(waitlist, userId)
        if (!model.includes(userId)) model.push(userId)
      } else {
        waitlist = Waitlist.leave(waitlist, userId)
        model = model.filter((u) => u !== userId)
      }
      if (step % 250 === 0) {
        assert.deepStrictEqual(Waitlist.waiters(waitlist), model)
        assert.strictEqual(Waitlist.size(waitlist), model.length)
        for (const probe of [userId, 1, 150, 300]) {
          const index = model.indexOf(probe)
          assert.strictEqual(Waitlist.positionIn(waitlist, probe), index === -1 ? null : index + 1)
          assert.strictEqual(Waitlist.isWaiting(waitlist, probe), index !== -1)
        }
        assert.deepStrictEqual(Waitlist.firstWaiters(waitlist, 3), model.slice(0, 3))
      }
    }
  })

  it("a change leaves the waitlist it was made from as it was", () => {
    const before = Waitlist.waitlistOf([3, 4, 5])
    const after = Waitlist.join(Waitlist.leave(before, 4), 4)
    assert.deepStrictEqual(Waitlist.waiters(before), [3, 4, 5])
    assert.deepStrictEqual(Waitlist.waiters(after), [3, 5, 4])
    assert.strictEqual(Waitlist.positionIn(before, 4), 2)
    assert.strictEqual(Waitlist.positionIn(after, 4), 3)
  })

  it("names who joined since an earlier waitlist, and puts members in their queue order", () => {
    const before = Waitlist.waitlistOf([3, 4, 5])
    let after = Waitlist.join(before, 6)
    after = Waitlist.leave(after, 4)
    after = Waitlist.join(after, 4)
    after = Waitlist.join(after, 3)
    assert.deepStrictEqual(Waitlist.joinedSince(after, before.nextSequence), [6, 4])
    assert.deepStrictEqual(Waitlist.inQueueOrder(before, [5, 9, 3]), [3, 5])
    assert.deepStrictEqual(Waitlist.firstWaiters(after, 0), [])
    assert.deepStrictEqual(Waitlist.firstWaiters(after, 10), [3, 5, 6, 4])
  })
})
