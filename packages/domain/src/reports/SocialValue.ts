import { Schema } from "effect"

/** The highest hourly value a community may set for its social-value report (decisions D17). */
export const MAX_HOURLY_VALUE = 10_000

/** ISO 4217 codes this runtime knows (`Intl.supportedValuesOf("currency")`): real currencies, not any 3 letters. */
const CURRENCIES: ReadonlySet<string> = new Set(Intl.supportedValuesOf("currency"))

/** An ISO 4217 currency code, upper case: `EUR`, `GBP`, `USD`, … */
export const Iso4217Currency = Schema.String.pipe(
  Schema.pattern(/^[A-Z]{3}$/, { message: () => "must be an ISO 4217 code of three upper-case letters" }),
  Schema.filter((code) => CURRENCIES.has(code) || "is not an ISO 4217 currency code")
).annotations({ description: "ISO 4217 currency code (three upper-case letters)", examples: ["EUR", "GBP"] })

/** What one hour given is worth, in `currency`: 0..10000, at most two decimals. */
export const HourlyValue = Schema.Number.pipe(
  Schema.finite(),
  Schema.between(0, MAX_HOURLY_VALUE, { message: () => `must be between 0 and ${MAX_HOURLY_VALUE}` }),
  Schema.filter((n) => Math.round(n * 100) / 100 === n || "must have at most two decimals")
).annotations({ description: `The value of one hour, 0..${MAX_HOURLY_VALUE}, at most two decimals` })

/**
 * The community's social-value setting (decisions D15, D17): stored as the configuration area `social_value`.
 * Strict: unknown keys are refused.
 */
export const SocialValueConfig = Schema.Struct({
  hourly_value: HourlyValue,
  currency: Iso4217Currency
}).annotations({ parseOptions: { onExcessProperty: "error" as const } })
export type SocialValueConfig = typeof SocialValueConfig.Type

/**
 * Until an admin sets the community's rate, an hour is valued at 0 EUR: a report never claims a value nobody chose
 * (the currency is the one most of the supported languages' communities use).
 */
export const SOCIAL_VALUE_DEFAULTS: SocialValueConfig = { hourly_value: 0, currency: "EUR" }

/** `PUT /api/v2/admin/reports/social-value/config`: either key or both (a partial PUT, merged over the stored one). */
export const SocialValueConfigInput = Schema.partialWith(SocialValueConfig, { exact: true }).annotations({
  parseOptions: { onExcessProperty: "error" }
})
export type SocialValueConfigInput = typeof SocialValueConfigInput.Type
