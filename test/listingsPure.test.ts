import { assert, describe, it } from "@effect/vitest"
import { CSS_NAMED_COLORS, isCategoryColor } from "@timebank/domain"
import { type AttributeDefinition, checkAttributeValues, optionIssues, slugify, uniqueSlug } from "@timebank/server"

describe("slugify", () => {
  it("lowercases, drops accents and joins words with single hyphens", () => {
    assert.strictEqual(slugify("Garden Work"), "garden-work")
    assert.strictEqual(slugify("  Café & Bäckerei!  "), "cafe-backerei")
    assert.strictEqual(slugify("DIY -- Repairs / Tools"), "diy-repairs-tools")
    assert.strictEqual(slugify("Straße"), "strasse")
    assert.strictEqual(slugify("Ærø Œuvre"), "aero-oeuvre")
    assert.strictEqual(slugify("Kids 4 Kids"), "kids-4-kids")
    assert.strictEqual(slugify("élan_vital"), "elan-vital")
  })
  it("falls back when nothing is left, and caps the length without a trailing hyphen", () => {
    assert.strictEqual(slugify("日本語"), "category")
    assert.strictEqual(slugify("!!!", "item"), "item")
    const long = slugify(`${"a".repeat(79)} b`)
    assert.strictEqual(long, "a".repeat(79))
    assert.isAtMost(slugify("word ".repeat(40)).length, 80)
    assert.notMatch(slugify("word ".repeat(40)), /-$/)
  })
})

describe("uniqueSlug", () => {
  it("keeps a free slug and numbers a taken one from 2", () => {
    assert.strictEqual(uniqueSlug("garden", new Set()), "garden")
    assert.strictEqual(uniqueSlug("garden", new Set(["garden"])), "garden-2")
    assert.strictEqual(uniqueSlug("garden", new Set(["garden", "garden-2", "garden-3"])), "garden-4")
    assert.strictEqual(uniqueSlug("garden", new Set(["garden-2"])), "garden")
  })
})

describe("checkAttributeValues", () => {
  const defs: ReadonlyArray<AttributeDefinition> = [
    { id: 1, name: "Colour", type: "select", options: ["red", "green"], required: true },
    { id: 2, name: "Size", type: "number", options: [], required: false },
    { id: 3, name: "Pets", type: "boolean", options: [], required: false },
    { id: 10, name: "Note", type: "text", options: [], required: false }
  ]
  it("keeps valid values keyed by id, trims text, and drops null and empty text", () => {
    assert.deepStrictEqual(checkAttributeValues(defs, { "10": "  hi ", "1": "red", "2": 0, "3": false }), {
      values: { "1": "red", "2": 0, "3": false, "10": "hi" },
      issues: []
    })
    assert.deepStrictEqual(checkAttributeValues(defs, { "1": "green", "10": "   ", "2": null }).values, {
      "1": "green"
    })
  })
  it("reports unknown keys, wrong types, values outside the options and missing required ones", () => {
    const { issues } = checkAttributeValues(defs, { "2": "3", "3": 1, "10": true, "99": "x", "01": "red" })
    assert.sameDeepMembers([...issues], [
      { field: "attributes.2", message: "must be a number" },
      { field: "attributes.3", message: "must be true or false" },
      { field: "attributes.10", message: "must be text" },
      { field: "attributes.99", message: "is not an attribute of this community" },
      { field: "attributes.01", message: "is not an attribute of this community" },
      { field: "attributes.1", message: "is required (Colour)" }
    ])
    assert.deepStrictEqual(checkAttributeValues(defs, { "1": "blue" }).issues, [
      { field: "attributes.1", message: "must be one of: red, green" }
    ])
    assert.deepStrictEqual(checkAttributeValues(defs, { "1": "red", "10": "x".repeat(1001) }).issues, [
      { field: "attributes.10", message: "must be at most 1000 characters" }
    ])
    // A bad value of a required attribute is reported once, not also as missing.
    assert.strictEqual(checkAttributeValues(defs, { "1": 5 }).issues.length, 1)
  })
})

describe("optionIssues", () => {
  it("a select needs distinct options; other types none", () => {
    assert.deepStrictEqual(optionIssues("select", ["a", "b"]), [])
    assert.deepStrictEqual(optionIssues("select", []), [
      { field: "options", message: "must list at least one option for a select" }
    ])
    assert.deepStrictEqual(optionIssues("select", ["a", "b", "a"]), [
      { field: "options.2", message: "repeats an earlier option" }
    ])
    assert.deepStrictEqual(optionIssues("text", []), [])
    assert.deepStrictEqual(optionIssues("number", ["1"]), [
      { field: "options", message: "must be empty for a number attribute" }
    ])
  })
})

describe("category colours", () => {
  it("the 148 named colours of CSS Color 4, lowercase; hex #rgb or #rrggbb; any case", () => {
    assert.strictEqual(CSS_NAMED_COLORS.size, 148)
    assert.isTrue([...CSS_NAMED_COLORS].every((name) => /^[a-z]+$/.test(name)))
    for (const ok of ["blue", "RebeccaPurple", "GRAY", "grey", "#abc", "#ABC", "#1e88e5", "#1E88E5"]) {
      assert.isTrue(isCategoryColor(ok), ok)
    }
    for (const bad of ["notacolour", "transparent", "currentcolor", "#ab", "#abcd", "#1e88e5ff", "blue ", "", "#"]) {
      assert.isFalse(isCategoryColor(bad), bad)
    }
  })
})
