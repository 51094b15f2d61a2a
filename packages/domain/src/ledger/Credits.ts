import { Schema } from "effect"

/** Time credits are hours with at most 2 decimals (decisions D2); inside the ledger they are whole cents. */
export type Cents = number

/**
 * Whether `n` hours is a whole number of cents. A value too small to be a cent (1e-300) is not: it would round to
 * 0 cents and reach the ledger or a `numeric(…, 2)` column as 0.
 */
export const hasTwoDecimals = (n: number): boolean => {
  const cents = Math.round(n * 100)
  return Math.abs(n * 100 - cents) < 1e-6 && (cents !== 0 || n === 0)
}

export const toCents = (hours: number): Cents => Math.round(hours * 100)
export const fromCents = (cents: Cents): number => cents / 100
/** `numeric(12,2)` text as PostgreSQL returns it, to cents. */
export const centsFromNumeric = (value: string | number): Cents => Math.round(Number(value) * 100)
export const numericFromCents = (cents: Cents): string => (cents / 100).toFixed(2)

/** A positive amount of hours with at most 2 decimals, as clients send it. */
export const Credits = Schema.Number.pipe(
  Schema.finite({ message: () => "must be a number" }),
  Schema.positive({ message: () => "must be more than 0" }),
  Schema.lessThanOrEqualTo(1_000_000, { message: () => "must be at most 1000000" }),
  Schema.filter(hasTwoDecimals, { message: () => "must have at most 2 decimals" })
).annotations({ description: "Hours, more than 0, at most 2 decimals" })
