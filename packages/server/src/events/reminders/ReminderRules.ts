import { Cause } from "effect"

const MINUTE = 60_000

/** A delivery claimed longer ago than this is taken to be lost with its runner and is released (spec "Limits"). */
export const STALE_CLAIM_MS = 60 * MINUTE

/** Deliveries claimed per kind and tick; the rest wait for the next tick. */
export const DELIVERY_BATCH = 500

export const DELIVERY_KINDS = ["user", "auto_24h", "auto_1h"] as const
export type DeliveryKind = typeof DELIVERY_KINDS[number]
export type AutoKind = Exclude<DeliveryKind, "user">

/**
 * The automatic reminders (spec "Limits"): events starting in [now + from, now + to). The 24 h scan is the spec's
 * 23 h 30 m – 24 h 30 m; the 1 h scan is the same one-hour window around its lead time (30–90 minutes), so that any
 * tick of up to an hour sees every event once in each window.
 */
export const AUTO_WINDOWS: ReadonlyArray<{ readonly kind: AutoKind; readonly from: number; readonly to: number }> = [
  { kind: "auto_24h", from: 23.5 * 60 * MINUTE, to: 24.5 * 60 * MINUTE },
  { kind: "auto_1h", from: 30 * MINUTE, to: 90 * MINUTE }
]

/** The lead time an automatic reminder stands for, as an offset in minutes. */
export const AUTO_OFFSET: Record<AutoKind, number> = { auto_24h: 1440, auto_1h: 60 }

/** Start times an automatic scan at `now` covers. */
export const autoWindow = (kind: AutoKind, now: Date) => {
  const window = AUTO_WINDOWS.find((w) => w.kind === kind)!
  return { from: new Date(now.getTime() + window.from), to: new Date(now.getTime() + window.to) }
}

/** What a claimed delivery's facts look like when it is finished. */
export interface DueFacts {
  readonly kind: DeliveryKind
  /** The user reminder's status now (automatic ones: null). */
  readonly reminderStatus: string | null
  /** The recipient's RSVP now (null: none). */
  readonly rsvp: string | null
  readonly eventStatus: "active" | "cancelled"
  readonly startTime: Date
  readonly eventsEnabled: boolean
}

export type DueOutcome =
  | { readonly _tag: "send" }
  /** The reminder changed after the scan (cleared or cancelled): nothing to deliver, the claim goes. */
  | { readonly _tag: "drop" }
  /** The member no longer goes nor is interested: the reminder is cancelled (spec "Reminder"). */
  | { readonly _tag: "cancel" }
  | { readonly _tag: "fail"; readonly reason: string }

/** Decides what a claimed delivery becomes. Pure, for tests. */
export const dueOutcome = (facts: DueFacts, now: Date): DueOutcome => {
  if (facts.kind === "user" && facts.reminderStatus !== "pending") return { _tag: "drop" }
  if (facts.rsvp !== "going" && facts.rsvp !== "interested") {
    return facts.kind === "user" ? { _tag: "cancel" } : { _tag: "drop" }
  }
  if (!facts.eventsEnabled) return { _tag: "fail", reason: "the community has switched events off" }
  if (facts.eventStatus === "cancelled") return { _tag: "fail", reason: "the event was cancelled" }
  if (facts.startTime.getTime() <= now.getTime()) return { _tag: "fail", reason: "the event has already started" }
  return { _tag: "send" }
}

/** What one tick did. */
export interface DeliveryReport {
  readonly released: number
  readonly sent: number
  readonly failed: number
  readonly cancelled: number
}

/** The failure reason a delivery records: the error's message, at most 500 characters. */
export const reasonOf = (cause: Cause.Cause<unknown>) => {
  const error = Cause.squash(cause)
  return (error instanceof Error ? error.message : String(error)).slice(0, 500) || "delivery failed"
}
