import { assert, describe, it } from "@effect/vitest"
import { csvField, csvRecord, csvRecords, reportRange } from "@timebank/server"
import { Either } from "effect"
import { CsvParser, parseCsv } from "./csvParser.js"

describe("CSV encoder (RFC 4180)", () => {
  it("quotes only fields that need it and doubles their quotes", () => {
    assert.strictEqual(csvField("plain"), "plain")
    assert.strictEqual(csvField(""), "")
    assert.strictEqual(csvField(null), "")
    assert.strictEqual(csvField(2.5), "2.5")
    assert.strictEqual(csvField(0), "0")
    assert.strictEqual(csvField(new Date("2024-03-01T10:00:00Z")), "2024-03-01T10:00:00.000Z")
    assert.strictEqual(csvField("a,b"), "\"a,b\"")
    assert.strictEqual(csvField("say \"hi\""), "\"say \"\"hi\"\"\"")
    assert.strictEqual(csvField("line\nbreak"), "\"line\nbreak\"")
    assert.strictEqual(csvField("cr\rhere"), "\"cr\rhere\"")
    assert.strictEqual(csvField(" spaces kept "), " spaces kept ")
    assert.strictEqual(csvField("Zoë ✓"), "Zoë ✓")
  })

  it("ends every record with CRLF", () => {
    assert.strictEqual(csvRecord(["id", "name"]), "id,name\r\n")
    assert.strictEqual(csvRecord([1, null, "x,y"]), "1,,\"x,y\"\r\n")
    assert.strictEqual(csvRecords([[1, "a"], [2, "b"]]), "1,a\r\n2,b\r\n")
    assert.strictEqual(csvRecords([]), "")
  })

  it("what it writes parses back to the same values, however the text is split", () => {
    const values = [
      ["id", "description", "empty", "last"],
      ["1", "Garden, \"weeding\"\r\nand more", "", "\""],
      ["2", "\n", ",", "\"\""]
    ]
    const text = csvRecords(values)
    assert.deepStrictEqual(parseCsv(text), values)
    for (let size = 1; size <= 7; size++) {
      const records: Array<ReadonlyArray<string>> = []
      const parser = new CsvParser((r) => records.push(r))
      for (let i = 0; i < text.length; i += size) parser.push(text.slice(i, i + size))
      parser.end()
      assert.deepStrictEqual(records, values, `split every ${size}`)
    }
  })

  it("the test parser refuses what RFC 4180 does not allow", () => {
    assert.throws(() => parseCsv("a\"b\r\n"))
    assert.throws(() => parseCsv("\"a\"b\r\n"))
    assert.throws(() => parseCsv("\"open\r\n"))
  })
})

describe("report ranges", () => {
  const now = new Date("2024-03-15T12:00:00Z")
  const range = (params: { from?: string; to?: string }, zone = "UTC") => reportRange(params, zone, now)

  it("defaults to the twelve calendar months up to today", () => {
    const r = Either.getOrThrow(range({}))
    assert.deepStrictEqual([r.from, r.to, r.months.length, r.months[0], r.months[11]], [
      "2023-04-01",
      "2024-03-15",
      12,
      "2023-04",
      "2024-03"
    ])
  })

  it("bounds the days in the community's time zone", () => {
    const r = Either.getOrThrow(range({ from: "2024-01-20", to: "2024-03-02" }, "Europe/Berlin"))
    assert.deepStrictEqual(r.months, ["2024-01", "2024-02", "2024-03"])
    assert.deepStrictEqual(r.period, { from: new Date("2024-01-19T23:00:00Z"), to: new Date("2024-03-02T23:00:00Z") })
    assert.deepStrictEqual(r.monthBuckets.starts, [
      new Date("2024-01-19T23:00:00Z"),
      new Date("2024-01-31T23:00:00Z"),
      new Date("2024-02-29T23:00:00Z")
    ])
    assert.deepStrictEqual(r.monthBuckets.end, r.period.to)
  })

  it("refuses backwards and over-long ranges on the parameter sent", () => {
    const field = (params: { from?: string; to?: string }) =>
      Either.match(range(params), { onLeft: (e) => e.issues.map((i) => i.field), onRight: () => [] })
    assert.deepStrictEqual(field({ from: "2024-03-02", to: "2024-03-01" }), ["to"])
    assert.deepStrictEqual(field({ from: "2024-03-16" }), ["from"])
    assert.deepStrictEqual(field({ from: "2014-03-01", to: "2024-03-01" }), ["to"])
    assert.deepStrictEqual(field({ from: "2014-04-01", to: "2024-03-31" }), [])
    assert.deepStrictEqual(field({ from: "2024-03-15", to: "2024-03-15" }), [])
  })
})
