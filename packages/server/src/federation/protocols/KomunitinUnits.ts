import type { Cents } from "@timebank/domain"

/**
 * Komunitin's amounts (decisions D16; shared/federation/komunitin.md §4): an `amount` is a positive integer in
 * 10^-scale of the currency, and `rate` {n, d} is what one currency unit is worth in hours, so one hour is
 * 10^scale × d / n units. All arithmetic here is on integers (BigInt): an amount that is not a whole number of
 * units is refused, never rounded.
 */

/** What we read of `GET /{code}/currency`. */
export interface KomunitinCurrency {
  readonly code: string
  /** `new`, `active` or `disabled`; undefined when the answer does not say. */
  readonly status: string | undefined
  readonly scale: number
  readonly rate: { readonly n: number; readonly d: number }
}

/** Komunitin itself allows 0..12; a little room above that, never an exponent BigInt would choke on. */
const MAX_SCALE = 24

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const positiveInteger = (value: unknown): value is number =>
  typeof value === "number" && Number.isSafeInteger(value) && value > 0

/** The currency of a `GET /{code}/currency` answer, or what is wrong with the answer. */
export const readCurrency = (json: unknown): KomunitinCurrency | { readonly problem: string } => {
  const data = isObject(json) ? json["data"] : undefined
  const attributes = isObject(data) ? data["attributes"] : undefined
  if (!isObject(attributes)) return { problem: "the answer has no data.attributes" }
  const { code, rate, scale, status } = attributes
  if (typeof scale !== "number" || !Number.isSafeInteger(scale) || scale < 0 || scale > MAX_SCALE) {
    return { problem: `scale ${JSON.stringify(scale)} is not an integer in 0..${MAX_SCALE}` }
  }
  if (!isObject(rate) || !positiveInteger(rate["n"]) || !positiveInteger(rate["d"])) {
    return { problem: `rate ${JSON.stringify(rate)} is not {n, d} with positive integers` }
  }
  return {
    code: typeof code === "string" ? code : "",
    status: typeof status === "string" ? status : undefined,
    scale,
    rate: { n: rate["n"], d: rate["d"] }
  }
}

/** Komunitin reads `amount` as a JavaScript number: above this it would no longer be the integer we sent. */
export const MAX_UNITS = BigInt(Number.MAX_SAFE_INTEGER)

export type UnitsResult =
  | { readonly _tag: "Units"; readonly units: bigint }
  | { readonly _tag: "NotRepresentable"; readonly reason: string }

const gcd = (a: bigint, b: bigint): bigint => (b === 0n ? a : gcd(b, a % b))

/** `numerator/denominator` reduced, or the integer when it divides. */
const fraction = (numerator: bigint, denominator: bigint): string => {
  const g = gcd(numerator, denominator)
  const [n, d] = [numerator / g, denominator / g]
  return d === 1n ? String(n) : `${n}/${d}`
}

/** Hundredths of an hour as hours, without trailing zeros: 150 → "1.5", 7 → "0.07". */
export const hoursText = (cents: Cents): string => {
  const sign = cents < 0 ? "-" : ""
  const whole = Math.floor(Math.abs(cents) / 100)
  const rest = Math.abs(cents) % 100
  return `${sign}${whole}${rest === 0 ? "" : `.${String(rest).padStart(2, "0").replace(/0$/, "")}`}`
}

/** How the currency is described in messages: its scale and rate, and what one hour is worth. */
export const currencyTerms = (currency: KomunitinCurrency): string => {
  const perHour = fraction(10n ** BigInt(currency.scale) * BigInt(currency.rate.d), BigInt(currency.rate.n))
  return `scale ${currency.scale}, rate ${currency.rate.n}/${currency.rate.d}: 1 h = ${perHour} units`
}

/** `cents` hundredths of an hour in the currency's units: cents × 10^scale × d / (100 × n), exactly. */
export const unitsOfCents = (cents: Cents, currency: KomunitinCurrency): UnitsResult => {
  const named = currency.code === "" ? "the partner's currency" : currency.code
  if (!Number.isSafeInteger(cents) || cents <= 0) {
    return { _tag: "NotRepresentable", reason: `${hoursText(cents)} h is not a positive amount` }
  }
  const numerator = BigInt(cents) * 10n ** BigInt(currency.scale) * BigInt(currency.rate.d)
  const denominator = 100n * BigInt(currency.rate.n)
  if (numerator % denominator !== 0n) {
    return {
      _tag: "NotRepresentable",
      reason: `${hoursText(cents)} h is ${fraction(numerator, denominator)} units of ${named} ` +
        `(${currencyTerms(currency)}); Komunitin takes whole units only`
    }
  }
  const units = numerator / denominator
  if (units > MAX_UNITS) {
    return {
      _tag: "NotRepresentable",
      reason: `${hoursText(cents)} h is ${units} units of ${named} (${currencyTerms(currency)}), ` +
        `more than ${MAX_UNITS}, the largest amount Komunitin reads exactly`
    }
  }
  return { _tag: "Units", units }
}
