import { assert, describe, it } from "@effect/vitest"
import { hashedText, nextHash, seedDigest } from "../../packages/server/src/federation/creditcommons/HashChain.js"
import { HASH_VECTORS, TX_FEES, TX_RELAY } from "./peers/creditCommonsFixtures.js"

const UUID = "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f"
const ENTRIES = [
  { quant: 1.5, description: "Jardinería — ½ h 🌱" },
  { quant: 0.07, description: "Frais d’échange" },
  { quant: 14, description: "日本語の説明" }
]

describe("Credit Commons hash chain (decisions D16)", () => {
  it("reproduces every vector of fixtures/credit-commons/04-hash-vectors.json", () => {
    const [relay, fees, versioned] = HASH_VECTORS
    // The fixture's transactions: 01 (no version), 02 (with fees, no version), 01 with version 1.
    const cases = [
      { vector: relay!, tx: TX_RELAY },
      { vector: fees!, tx: TX_FEES },
      { vector: versioned!, tx: { ...TX_RELAY, version: 1 } }
    ]
    for (const { tx, vector } of cases) {
      assert.strictEqual(hashedText(vector.last_hash_before, tx), vector.string_hashed, vector.case)
      assert.strictEqual(nextHash(vector.last_hash_before, tx), vector.md5_hex, vector.case)
    }
  })

  it("reproduces the outbound vector of fixtures/credit-commons/18 (version 1, quant 0.1)", () => {
    const tx = {
      version: 1,
      uuid: "00000000-0000-4000-8000-000000000000",
      state: "V",
      entries: [{ quant: 0.1, description: "Test transfer from trunk/EXTR0000 to trunk/branch2/TEST0002" }]
    }
    assert.strictEqual(nextHash("trunk", tx), "f37cc0acde9af25e671c1d81bb8108ad")
  })

  // The expected values were computed with Python's hashlib, independently of this code:
  //   python3 -c 'import hashlib; print(hashlib.md5("<text>".encode("utf-8")).hexdigest())'
  // with <text> the string asserted by `hashedText` in each case.
  it("hashes UTF-8 descriptions and several entries as Python's hashlib does", () => {
    const chained = { uuid: UUID, state: "V", entries: ENTRIES, version: 1 }
    const before = "f37cc0acde9af25e671c1d81bb8108ad"
    assert.strictEqual(
      hashedText(before, chained),
      `${before}|${UUID}|V|1.5|Jardinería — ½ h 🌱|0.07|Frais d’échange|14|日本語の説明|1`
    )
    assert.strictEqual(nextHash(before, chained), "88f252422ec1421532533168703c9fbb")

    const unversioned = { uuid: UUID, state: "C", entries: ENTRIES }
    assert.strictEqual(
      hashedText("trunk", unversioned),
      `trunk|${UUID}|C|1.5|Jardinería — ½ h 🌱|0.07|Frais d’échange|14|日本語の説明|`
    )
    assert.strictEqual(nextHash("trunk", unversioned), "b0873add88efd72d3a24b435b7c4f166")

    // A `|` inside a description and an empty description are hashed as they are (Komunitin does not escape).
    const piped = {
      uuid: "00000000-0000-4000-8000-000000000001",
      state: "V",
      entries: [{ quant: 2, description: "a|b" }, { quant: 0.5, description: "" }],
      version: 1
    }
    assert.strictEqual(hashedText("seed-Ω", piped), "seed-Ω|00000000-0000-4000-8000-000000000001|V|2|a|b|0.5||1")
    assert.strictEqual(nextHash("seed-Ω", piped), "d213385bb4abf0a702fe63375cb17c66")
  })

  it("only quant and description of the entries count; payer, payee, metadata and workflow do not", () => {
    const a = { ...TX_RELAY, entries: TX_RELAY.entries.map((e) => ({ ...e, payee: "x/y", metadata: {} })) }
    assert.strictEqual(nextHash("trunk", a), nextHash("trunk", TX_RELAY))
    assert.notStrictEqual(nextHash("trunk", { ...TX_RELAY, state: "C" }), nextHash("trunk", TX_RELAY))
    assert.notStrictEqual(nextHash("other", TX_RELAY), nextHash("trunk", TX_RELAY))
  })

  it("remembers a seed by its SHA-256, so a new seed is noticed", () => {
    assert.strictEqual(seedDigest("trunk"), seedDigest("trunk"))
    assert.notStrictEqual(seedDigest("trunk"), seedDigest("trunk2"))
    assert.match(seedDigest("trunk"), /^[0-9a-f]{64}$/)
  })
})
