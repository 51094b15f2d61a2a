import { assert, describe, it } from "@effect/vitest"
import { komunitinSettingsIssues } from "../../packages/server/src/federation/protocols/KomunitinSettings.js"
import {
  hoursText,
  type KomunitinCurrency,
  MAX_UNITS,
  readCurrency,
  unitsOfCents
} from "../../packages/server/src/federation/protocols/KomunitinUnits.js"

/** shared/federation/fixtures/komunitin/08-currency.response.200.openapi.json, the fields we read. */
const fixture08 = {
  data: {
    type: "currencies",
    id: "d10e351f-43a8-415b-8240-230b552b8804",
    attributes: { code: "TES1", status: "active", decimals: 2, scale: 4, rate: { n: 1, d: 10 } }
  }
}

const currency = (scale: number, n: number, d: number): KomunitinCurrency => ({
  code: "TEST",
  status: "active",
  scale,
  rate: { n, d }
})

const units = (cents: number, c: KomunitinCurrency) => {
  const result = unitsOfCents(cents, c)
  return result._tag === "Units" ? result.units : result.reason
}

describe("Komunitin units (hours × 10^scale × d / n, integers only)", () => {
  it("fixture 08's currency (scale 4, rate 1/10): 1 h = 100 000 units, 1.5 h = 150 000, 0.01 h = 1000", () => {
    const fixture = readCurrency(fixture08)
    assert.deepStrictEqual(fixture, { code: "TES1", status: "active", scale: 4, rate: { n: 1, d: 10 } })
    const c = fixture as KomunitinCurrency
    assert.strictEqual(units(100, c), 100_000n)
    assert.strictEqual(units(150, c), 150_000n)
    assert.strictEqual(units(1, c), 1_000n)
  })

  it("exact conversions across scales and rates", () => {
    assert.strictEqual(units(100, currency(0, 1, 1)), 1n, "scale 0, 1:1 → whole hours")
    assert.strictEqual(units(300, currency(0, 1, 1)), 3n)
    assert.strictEqual(units(1, currency(2, 1, 1)), 1n, "scale 2, 1:1 → hundredths, our own unit")
    assert.strictEqual(units(1234, currency(2, 1, 1)), 1234n)
    assert.strictEqual(units(50, currency(0, 1, 2)), 1n, "1 unit = 1/2 h: 0.5 h = 1 unit")
    assert.strictEqual(units(150, currency(1, 3, 2)), 10n, "1 unit = 1.5 h at scale 1: 1.5 h = 10 tenths")
    assert.strictEqual(units(7, currency(12, 1, 1)), 70_000_000_000n, "scale 12 (Komunitin's maximum)")
    assert.strictEqual(units(25, currency(3, 2, 13)), 1625n, "rate 2/13: 0.25 h × 1000 × 13 / 2")
  })

  it("amounts that are not whole units are refused with the scale and rate named, never rounded", () => {
    const half = unitsOfCents(50, currency(0, 1, 1))
    assert.strictEqual(half._tag, "NotRepresentable")
    assert.strictEqual(
      (half as { reason: string }).reason,
      "0.5 h is 1/2 units of TEST (scale 0, rate 1/1: 1 h = 1 units); Komunitin takes whole units only"
    )
    const hundredth = unitsOfCents(1, currency(1, 1, 1))
    assert.include((hundredth as { reason: string }).reason, "0.01 h is 1/10 units")
    assert.include((hundredth as { reason: string }).reason, "scale 1")
    // 1 unit = 3 h: an hour is a third of a unit; 3 h is one unit.
    const third = unitsOfCents(100, currency(0, 3, 1))
    assert.include(
      (third as { reason: string }).reason,
      "1 h is 1/3 units of TEST (scale 0, rate 3/1: 1 h = 1/3 units)"
    )
    assert.strictEqual(units(300, currency(0, 3, 1)), 1n)
    // 0.07 h at scale 1 with rate 1/1 is 0.7 units.
    assert.include(String(units(7, currency(1, 1, 1))), "0.07 h is 7/10 units")
    // Not positive.
    assert.include(String(units(0, currency(4, 1, 10))), "is not a positive amount")
    assert.include(String(units(-100, currency(4, 1, 10))), "-1 h is not a positive amount")
  })

  it("large amounts stay exact up to 2^53 − 1 units and are refused beyond", () => {
    // Scale 0, rate 1/100 (1 h = 100 units): every hundredth of an hour is one unit, up to the largest exact one.
    assert.strictEqual(units(9_007_199_254_740_991, currency(0, 1, 100)), MAX_UNITS)
    const over = unitsOfCents(9_007_199_254_740_991, currency(1, 1, 100))
    assert.strictEqual(over._tag, "NotRepresentable")
    assert.include((over as { reason: string }).reason, "90071992547409910 units")
    assert.include((over as { reason: string }).reason, `more than ${MAX_UNITS}`)
    // A million hours at scale 12: 10^18 units, past what a JavaScript number holds exactly.
    assert.include(String(units(100_000_000, currency(12, 1, 1))), "1000000000000000000 units")
    // A million hours at fixture 08's terms: 10^11 units, exact.
    assert.strictEqual(units(100_000_000, currency(4, 1, 10)), 100_000_000_000n)
  })

  it("a currency answer without a usable scale or rate is named as such", () => {
    assert.deepStrictEqual(readCurrency({}), { problem: "the answer has no data.attributes" })
    assert.deepStrictEqual(readCurrency({ data: { attributes: { scale: 2.5, rate: { n: 1, d: 1 } } } }), {
      problem: "scale 2.5 is not an integer in 0..24"
    })
    assert.deepStrictEqual(readCurrency({ data: { attributes: { scale: 2, rate: { n: 0, d: 1 } } } }), {
      problem: "rate {\"n\":0,\"d\":1} is not {n, d} with positive integers"
    })
    assert.deepStrictEqual(readCurrency({ data: { attributes: { scale: 2, rate: "1/1" } } }), {
      problem: "rate \"1/1\" is not {n, d} with positive integers"
    })
  })

  it("hours are written without trailing zeros", () => {
    assert.deepStrictEqual([150, 7, 100, 1, 12345, -50].map(hoursText), ["1.5", "0.07", "1", "0.01", "123.45", "-0.5"])
  })
})

describe("komunitin partner settings (422 settings.<k>)", () => {
  const good = { currency_code: "TEST", payer_account_id: "86be4ba3-8303-4609-9105-2ac305f65d64" }

  it("a partner's code and a payer account UUID are enough; commit defaults to direct", () => {
    assert.deepStrictEqual(komunitinSettingsIssues(good), [])
    assert.deepStrictEqual(komunitinSettingsIssues({ ...good, commit: "two_step", credit_limit: 50 }), [])
  })

  it("missing and malformed settings each get their dotted field", () => {
    assert.deepStrictEqual(komunitinSettingsIssues({}).map((i) => i.field), [
      "settings.currency_code",
      "settings.payer_account_id"
    ])
    const bad = komunitinSettingsIssues({ currency_code: "test", payer_account_id: "local/123", commit: "pending" })
    assert.deepStrictEqual(bad.map((i) => i.field), [
      "settings.currency_code",
      "settings.payer_account_id",
      "settings.commit"
    ])
    assert.include(bad[0]!.message, "^[A-Z0-9]{4}$")
    assert.include(bad[1]!.message, "UUID")
    assert.strictEqual(bad[2]!.message, "must be direct or two_step")
    for (const code of ["TES", "TESTS", "TE-T", 1234]) {
      assert.deepStrictEqual(komunitinSettingsIssues({ ...good, currency_code: code }).map((i) => i.field), [
        "settings.currency_code"
      ])
    }
    assert.deepStrictEqual(komunitinSettingsIssues({ ...good, currency_code: "TES1" }), [], "digits are allowed")
  })
})
