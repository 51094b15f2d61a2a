import { ValidationFailed } from "@timebank/domain"
import { Either } from "effect"

/** How many of each thing `seed data` writes into a tenant. */
export interface SeedCounts {
  readonly members: number
  readonly organisations: number
  readonly listings: number
  readonly events: number
  readonly transactions: number
}

export const SEED_KINDS = ["members", "organisations", "listings", "events", "transactions"] as const

/** The sizes the benches use; explicit counts override a size's. */
export const SEED_SIZES = {
  small: { members: 100, organisations: 10, listings: 200, events: 20, transactions: 500 },
  medium: { members: 2_000, organisations: 500, listings: 5_000, events: 500, transactions: 20_000 },
  large: { members: 20_000, organisations: 10_000, listings: 50_000, events: 5_000, transactions: 200_000 }
} as const satisfies Record<string, SeedCounts>

export type SeedSize = keyof typeof SEED_SIZES

const MAX_COUNT = 10_000_000

/** Rows written per statement: big enough to be set-based, small enough for a progress bar that moves. */
export const BATCH = 5_000

/**
 * The counts asked for: the size's (default small), each replaced by its explicit count. Counts are whole numbers
 * from 0; anything owned by a member (organisations, listings, events, transactions) needs members, and transfers
 * need two. Pure, for tests.
 */
export const seedCounts = (
  size: string | undefined,
  explicit: Partial<Record<keyof SeedCounts, string>>
): Either.Either<SeedCounts, ValidationFailed> => {
  if (size !== undefined && !(size in SEED_SIZES)) {
    return Either.left(ValidationFailed.field("size", "must be small, medium or large"))
  }
  const base: SeedCounts = SEED_SIZES[(size ?? "small") as SeedSize]
  const counts = { ...base }
  for (const kind of SEED_KINDS) {
    const text = explicit[kind]
    if (text === undefined) continue
    if (!/^[0-9]+$/.test(text) || Number(text) > MAX_COUNT) {
      return Either.left(ValidationFailed.field(kind, `must be a whole number from 0 to ${MAX_COUNT}`))
    }
    counts[kind] = Number(text)
  }
  if (counts.members === 0 && counts.organisations + counts.listings + counts.events + counts.transactions > 0) {
    return Either.left(
      ValidationFailed.field("members", "organisations, listings, events and transactions need members")
    )
  }
  if (counts.transactions > 0 && counts.members < 2) {
    return Either.left(ValidationFailed.field("members", "transactions need at least 2 members"))
  }
  return Either.right(counts)
}

/** `1..count` in ranges of at most {@link BATCH}: the `generate_series` bounds of each statement. */
export const batches = (count: number): ReadonlyArray<readonly [number, number]> =>
  Array.from({ length: Math.ceil(count / BATCH) }, (_, i) => [i * BATCH + 1, Math.min(count, (i + 1) * BATCH)] as const)

/**
 * Each member first receives a grant large enough for every transfer they will send (transfers go round the
 * members, at most 2 hours each), so no balance ever goes below zero.
 */
export const grantHours = (counts: SeedCounts) => Math.ceil(counts.transactions / counts.members) * 2 + 5
