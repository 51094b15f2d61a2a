import { Schema } from "effect"

/** Time credits are hours with at most 2 decimals (decisions D2); inside the ledger they are whole cents. */
export type Cents = number

const hasTwoDecimals = (n: number) => Math.abs(n * 100 - Math.round(n * 100)) < 1e-6

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
