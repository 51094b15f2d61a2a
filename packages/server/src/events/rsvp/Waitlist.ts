import { HashMap, Number as Num, Option, RedBlackTree } from "effect"

/**
 * The waitlist of one event, first come first: persistent, so a change makes a new waitlist that shares the rest
 * with the old one (the Event entity keeps the committed places while it decides a batch on top of them). Joining,
 * leaving and membership cost O(log n) whatever the length; a member's position costs the number of waiters behind
 * them, so the answer to a member who just joined is immediate.
 */
export interface Waitlist {
  /** Join sequence → user id, in queue order. */
  readonly queue: RedBlackTree.RedBlackTree<number, number>
  /** User id → join sequence. */
  readonly sequenceOf: HashMap.HashMap<number, number>
  /** The sequence the next member to join gets: every later joiner's is at least this. */
  readonly nextSequence: number
}

const emptyWaitlist: Waitlist = {
  queue: RedBlackTree.empty<number, number>(Num.Order),
  sequenceOf: HashMap.empty(),
  nextSequence: 0
}

export const waitlistOf = (userIds: Iterable<number>): Waitlist => {
  let waitlist = emptyWaitlist
  for (const userId of userIds) waitlist = join(waitlist, userId)
  return waitlist
}

export const size = (waitlist: Waitlist): number => RedBlackTree.size(waitlist.queue)

export const isWaiting = (waitlist: Waitlist, userId: number): boolean => HashMap.has(waitlist.sequenceOf, userId)

/** At the end of the queue; a member already waiting keeps their place. */
export const join = (waitlist: Waitlist, userId: number): Waitlist =>
  isWaiting(waitlist, userId) ? waitlist : {
    queue: RedBlackTree.insert(waitlist.queue, waitlist.nextSequence, userId),
    sequenceOf: HashMap.set(waitlist.sequenceOf, userId, waitlist.nextSequence),
    nextSequence: waitlist.nextSequence + 1
  }

export const leave = (waitlist: Waitlist, userId: number): Waitlist =>
  Option.match(HashMap.get(waitlist.sequenceOf, userId), {
    onNone: () => waitlist,
    onSome: (sequence) => ({
      queue: RedBlackTree.removeFirst(waitlist.queue, sequence),
      sequenceOf: HashMap.remove(waitlist.sequenceOf, userId),
      nextSequence: waitlist.nextSequence
    })
  })

/** The first `count` waiters, in order. */
export const firstWaiters = (waitlist: Waitlist, count: number): Array<number> => {
  const first: Array<number> = []
  if (count <= 0) return first
  for (const userId of RedBlackTree.values(waitlist.queue)) {
    first.push(userId)
    if (first.length >= count) break
  }
  return first
}

/** Everyone waiting, in order. */
export const waiters = (waitlist: Waitlist): Array<number> => Array.from(RedBlackTree.values(waitlist.queue))

/** The waiters who joined at `sequence` or later, in order. */
export const joinedSince = (waitlist: Waitlist, sequence: number): Array<number> =>
  Array.from(RedBlackTree.greaterThanEqual(waitlist.queue, sequence), ([, userId]) => userId)

/** 1 + the number of members ahead; null when not waiting. Counted from the end of the queue. */
export const positionIn = (waitlist: Waitlist, userId: number): number | null =>
  Option.match(HashMap.get(waitlist.sequenceOf, userId), {
    onNone: () => null,
    onSome: (sequence) => {
      let behind = 0
      for (const _ of RedBlackTree.greaterThan(waitlist.queue, sequence)) behind++
      return size(waitlist) - behind
    }
  })

/** The queue order of members who were waiting: by their sequence in `waitlist`. */
export const inQueueOrder = (waitlist: Waitlist, userIds: Iterable<number>): Array<number> => {
  const sequence = (userId: number) => HashMap.unsafeGet(waitlist.sequenceOf, userId)
  return Array.from(userIds)
    .filter((userId) => isWaiting(waitlist, userId))
    .sort((a, b) => sequence(a) - sequence(b))
}
