import { assert, describe, it } from "@effect/vitest"
import { MatchScoring, MatchText } from "@timebank/server"

const {
  availabilityComponent,
  categoryComponent,
  COMPLEMENTARY,
  DEFAULT_WEIGHTS,
  distanceComponent,
  effectiveWeights,
  isMatch,
  NEUTRAL,
  scoreMatch,
  skillsComponent,
  skillWords,
  weightedScore
} = MatchScoring

type Seeker = MatchScoring.Seeker
type Candidate = MatchScoring.Candidate

const BRISTOL = { latitude: 51.4545, longitude: -2.5879 }
// About 10 km east of Bristol (Keynsham-ish), and Leeds (about 270 km away).
const NEAR_BRISTOL = { latitude: 51.4545, longitude: -2.444 }
const LEEDS = { latitude: 53.8008, longitude: -1.5491 }

const seeker = (overrides: Partial<Seeker> = {}): Seeker => ({
  skills: [],
  availability: {},
  interests: new Set(),
  offers: new Set(),
  requests: new Set(),
  point: null,
  maxDistanceKm: 25,
  ...overrides
})

const candidate = (overrides: Partial<Candidate> = {}): Candidate => ({
  listingType: "offer",
  categoryId: null,
  text: "",
  point: null,
  ...overrides
})

const words = (text: string) => new Set(MatchText.words(text))

describe("match text", () => {
  it("stems and drops short words and stopwords", () => {
    assert.deepStrictEqual(MatchText.words("Gardening and the GARDENS, a gardener's help"), [
      "garden",
      "garden",
      "garden"
    ])
    assert.strictEqual(MatchText.stem("walking"), "walk")
    assert.strictEqual(MatchText.stem("water"), "water", "too short a stem is left whole")
    assert.deepStrictEqual(MatchText.words("Über-Größe café 42 ab"), ["über", "größe", "café"])
  })

  it("reads days and parts of the day out of a text", () => {
    const sat = MatchText.availabilityOf("Help on Saturday mornings in the park")
    assert.deepStrictEqual([...sat.days], ["sat"])
    assert.deepStrictEqual([...sat.slots], ["morning"])
    const weekend = MatchText.availabilityOf("Weekends and weekday evenings")
    assert.deepStrictEqual([...weekend.days].sort(), ["fri", "mon", "sat", "sun", "thu", "tue", "wed"])
    assert.deepStrictEqual([...weekend.slots], ["evening"])
    const none = MatchText.availabilityOf("Any time really")
    assert.strictEqual(none.days.size + none.slots.size, 0)
  })
})

describe("category component", () => {
  it("is 1 for a category of interest", () => {
    const c = categoryComponent(seeker({ interests: new Set([7]) }), candidate({ categoryId: 7 }))
    assert.deepStrictEqual(c, { value: 1, known: true, reasons: ["category"] })
  })

  it("is complementary when the member offers what a request asks, or asks what an offer gives", () => {
    const offersGardening = seeker({ offers: new Set([7]) })
    assert.deepStrictEqual(categoryComponent(offersGardening, candidate({ categoryId: 7, listingType: "request" })), {
      value: COMPLEMENTARY,
      known: true,
      reasons: ["category:complementary"]
    })
    // Another offer of the same category competes rather than complements.
    assert.strictEqual(categoryComponent(offersGardening, candidate({ categoryId: 7, listingType: "offer" })).value, 0)
    const asks = seeker({ requests: new Set([7]) })
    assert.strictEqual(categoryComponent(asks, candidate({ categoryId: 7, listingType: "offer" })).value, COMPLEMENTARY)
  })

  it("is 0 for another category and neutral when either side says nothing", () => {
    assert.deepStrictEqual(categoryComponent(seeker({ interests: new Set([7]) }), candidate({ categoryId: 8 })), {
      value: 0,
      known: true,
      reasons: []
    })
    assert.deepStrictEqual(categoryComponent(seeker(), candidate({ categoryId: 8 })), {
      value: NEUTRAL,
      known: false,
      reasons: []
    })
    assert.isFalse(categoryComponent(seeker({ interests: new Set([7]) }), candidate({ listingType: null })).known)
  })
})

describe("skills component", () => {
  it("counts the share of each skill's words in the text, summed and capped at 1", () => {
    const skills = skillWords(["gardening", "dog walking", "IT"])
    // "IT" has no usable word and is left out.
    assert.deepStrictEqual(skills.map((s) => s.skill), ["gardening", "dog walking"])
    const full = skillsComponent(skills, words("Garden help: mowing and weeding the gardens"))
    assert.deepStrictEqual(full, { value: 1, known: true, reasons: ["skills:gardening"] })
    const half = skillsComponent(skills, words("Dog sitting while I am away"))
    assert.deepStrictEqual(half, { value: 0.5, known: true, reasons: ["skills:dog walking"] })
    const both = skillsComponent(skills, words("Walk my dog and weed my garden"))
    assert.deepStrictEqual(both, { value: 1, known: true, reasons: ["skills:gardening", "skills:dog walking"] })
    assert.deepStrictEqual(skillsComponent(skills, words("Bicycle repair")), { value: 0, known: true, reasons: [] })
  })

  it("is neutral without skills", () => {
    assert.deepStrictEqual(skillsComponent(skillWords([]), words("Gardening")), {
      value: NEUTRAL,
      known: false,
      reasons: []
    })
  })
})

describe("distance component", () => {
  it("is 1 at the same place and falls linearly to 0 at the maximum", () => {
    assert.deepStrictEqual(distanceComponent(BRISTOL, BRISTOL, 25), {
      value: 1,
      known: true,
      reasons: ["distance:0km"]
    })
    const near = distanceComponent(BRISTOL, NEAR_BRISTOL, 25)
    assert.isTrue(near.known)
    assert.closeTo(near.value, 1 - 10 / 25, 0.02)
    assert.deepStrictEqual(near.reasons, ["distance:10km"])
    // With a maximum of 20 km the same place is half as good.
    assert.closeTo(distanceComponent(BRISTOL, NEAR_BRISTOL, 20).value, 0.5, 0.02)
  })

  it("is 0 beyond the maximum and neutral when a place is unknown", () => {
    assert.deepStrictEqual(distanceComponent(BRISTOL, LEEDS, 25), { value: 0, known: true, reasons: [] })
    assert.deepStrictEqual(distanceComponent(null, LEEDS, 25), { value: NEUTRAL, known: false, reasons: [] })
    assert.deepStrictEqual(distanceComponent(BRISTOL, null, 25), { value: NEUTRAL, known: false, reasons: [] })
  })
})

describe("availability component", () => {
  it("is the share of the candidate's days the member is free at one of its parts of the day", () => {
    const member = { sat: ["morning"] as const, wed: ["evening"] as const }
    assert.deepStrictEqual(availabilityComponent(member, MatchText.availabilityOf("Saturday mornings")), {
      value: 1,
      known: true,
      reasons: ["availability:sat"]
    })
    assert.deepStrictEqual(availabilityComponent(member, MatchText.availabilityOf("Weekends")), {
      value: 0.5,
      known: true,
      reasons: ["availability:sat"]
    })
    assert.deepStrictEqual(availabilityComponent(member, MatchText.availabilityOf("Saturday afternoons")), {
      value: 0,
      known: true,
      reasons: []
    })
    // Only a part of the day: all seven days count, and the member is free on one of those evenings.
    const evenings = availabilityComponent(member, MatchText.availabilityOf("Evenings"))
    assert.closeTo(evenings.value, 1 / 7, 1e-9)
    assert.deepStrictEqual(evenings.reasons, ["availability:wed"])
  })

  it("is neutral when either side says nothing", () => {
    assert.isFalse(availabilityComponent({}, MatchText.availabilityOf("Saturday")).known)
    assert.isFalse(availabilityComponent({ sat: ["morning"] }, MatchText.availabilityOf("Whenever")).known)
    assert.strictEqual(availabilityComponent({}, MatchText.availabilityOf("Saturday")).value, NEUTRAL)
  })
})

describe("weighted score", () => {
  const c = (value: number) => ({ value, known: true, reasons: [] })

  it("is the weighted mean of the components, rounded to 4 decimals", () => {
    const components = { category: c(1), skills: c(0.5), distance: c(0), availability: c(1 / 3) }
    assert.strictEqual(weightedScore(components, { category: 1, skills: 1, distance: 1, availability: 1 }), 0.4583)
    assert.strictEqual(weightedScore(components, { category: 2, skills: 0, distance: 0, availability: 0 }), 1)
    assert.strictEqual(weightedScore(components, { category: 0, skills: 0, distance: 10, availability: 0 }), 0)
    assert.strictEqual(weightedScore(components, { category: 0, skills: 0, distance: 0, availability: 0 }), 0)
  })

  it("falls back to the default weights only when all are 0", () => {
    assert.deepStrictEqual(effectiveWeights({ category: 0, skills: 0, distance: 0, availability: 0 }), DEFAULT_WEIGHTS)
    const own = { category: 0, skills: 1, distance: 0, availability: 0 }
    assert.deepStrictEqual(effectiveWeights(own), own)
  })
})

describe("scoreMatch", () => {
  const gardener = seeker({
    skills: ["gardening"],
    interests: new Set([7]),
    availability: { sat: ["morning"] },
    point: BRISTOL
  })
  const skills = skillWords(gardener.skills)

  it("ranks a fitting candidate above an unrelated one, with the reasons of what fits", () => {
    const fitting = scoreMatch(gardener, skills, {
      listingType: "offer",
      categoryId: 7,
      text: "Gardening help on Saturday mornings",
      point: NEAR_BRISTOL
    }, DEFAULT_WEIGHTS)
    const unrelated = scoreMatch(gardener, skills, {
      listingType: "offer",
      categoryId: 8,
      text: "Bicycle repair",
      point: LEEDS
    }, DEFAULT_WEIGHTS)
    assert.deepStrictEqual(fitting.reasons, ["category", "skills:gardening", "distance:10km", "availability:sat"])
    // 3·1 + 4·1 + 2·0.6 + 1·1 over 10.
    assert.closeTo(fitting.score, 0.92, 0.005)
    assert.deepStrictEqual(unrelated.reasons, [])
    // Only availability is unknown (neutral): 1·0.5 over 10.
    assert.strictEqual(unrelated.score, 0.05)
    assert.isTrue(isMatch(fitting, 0.4))
    assert.isFalse(isMatch(unrelated, 0))
  })

  it("leaves out of the reasons what a weight of 0 ignores, and the threshold decides", () => {
    const noSkills = { category: 1, skills: 0, distance: 0, availability: 0 }
    const scored = scoreMatch(gardener, skills, candidate({ categoryId: 7, text: "Gardening" }), noSkills)
    assert.deepStrictEqual(scored.reasons, ["category"])
    assert.strictEqual(scored.score, 1)
    const skillsOnly = scoreMatch(gardener, skills, candidate({ categoryId: 8, text: "Gardening" }), noSkills)
    assert.deepStrictEqual(skillsOnly.reasons, [])
    assert.strictEqual(skillsOnly.score, 0)
    assert.isFalse(isMatch(scored, 1.0001))
    assert.isTrue(isMatch(scored, 1))
  })

  it("gives a member who says nothing no match, however neutral the score", () => {
    const scored = scoreMatch(seeker(), [], candidate({ categoryId: 7, text: "Gardening" }), DEFAULT_WEIGHTS)
    assert.strictEqual(scored.score, NEUTRAL)
    assert.isFalse(isMatch(scored, 0))
  })
})
