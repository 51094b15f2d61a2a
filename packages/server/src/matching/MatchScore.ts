import type { Availability, MatchWeights } from "@timebank/domain"
import { distanceKm } from "../platform/Geocoder.js"
import { availabilityOf, saysAvailability, SLOTS, type TextAvailability, WEEKDAYS, words } from "./MatchText.js"

/**
 * The scoring of a match (decisions D17 "Matching"), pure: four components of 0 to 1 — category, skills, distance,
 * availability — and their weighted mean. A component that cannot be judged (a side did not say) counts as
 * {@link NEUTRAL}; a component that could be judged and scored above 0 names itself in the reasons.
 */

export const DEFAULT_WEIGHTS: MatchWeights = { category: 3, skills: 4, distance: 2, availability: 1 }
export const DEFAULT_MIN_SCORE = 0.4
export const DEFAULT_MAX_DISTANCE_KM = 25
/** What a component counts for when it cannot be judged: neither for nor against. */
export const NEUTRAL = 0.5
/** A match's category is one the member offers or asks for, the other way round: a good, not perfect, fit. */
export const COMPLEMENTARY = 0.75

export interface Point {
  readonly latitude: number
  readonly longitude: number
}

/** The member matches are computed for. */
export interface Seeker {
  /** Skills as the member wrote them. */
  readonly skills: ReadonlyArray<string>
  readonly availability: Availability
  /** Listing categories the member said they are interested in. */
  readonly interests: ReadonlySet<number>
  /** Categories of the member's own active offers and requests. */
  readonly offers: ReadonlySet<number>
  readonly requests: ReadonlySet<number>
  readonly point: Point | null
  readonly maxDistanceKm: number
}

/** A listing or an opportunity that may match. */
export interface Candidate {
  /** `offer` or `request` for a listing; null for an opportunity. */
  readonly listingType: "offer" | "request" | null
  readonly categoryId: number | null
  /** Title and description. */
  readonly text: string
  readonly point: Point | null
}

/** One component: its value, whether it could be judged at all, and what it names in the reasons. */
export interface Component {
  readonly value: number
  readonly known: boolean
  readonly reasons: ReadonlyArray<string>
}

export type ComponentName = keyof MatchWeights

export interface Scored {
  /** The weighted mean, 0 to 1, rounded to 4 decimals. */
  readonly score: number
  readonly reasons: ReadonlyArray<string>
  readonly components: { readonly [K in ComponentName]: Component }
}

const unknown: Component = { value: NEUTRAL, known: false, reasons: [] }

/** 1 in the member's interests, {@link COMPLEMENTARY} when the member offers what it asks (or the reverse), else 0. */
export const categoryComponent = (seeker: Seeker, candidate: Candidate): Component => {
  const saysCategories = seeker.interests.size + seeker.offers.size + seeker.requests.size > 0
  if (!saysCategories || candidate.categoryId === null) return unknown
  const id = candidate.categoryId
  if (seeker.interests.has(id)) return { value: 1, known: true, reasons: ["category"] }
  const complementary = (candidate.listingType === "request" && seeker.offers.has(id)) ||
    (candidate.listingType === "offer" && seeker.requests.has(id))
  return complementary
    ? { value: COMPLEMENTARY, known: true, reasons: ["category:complementary"] }
    : { value: 0, known: true, reasons: [] }
}

/** A skill with the words it is compared by; skills of no usable word ("IT", "a") are left out. */
export interface SkillWords {
  readonly skill: string
  readonly words: ReadonlyArray<string>
}

export const skillWords = (skills: ReadonlyArray<string>): ReadonlyArray<SkillWords> =>
  skills.map((skill) => ({ skill, words: [...new Set(words(skill))] })).filter((s) => s.words.length > 0)

/**
 * Each skill counts the share of its words the candidate's text has ("dog walking" against "walking your dog": 1,
 * against "dog sitting": 0.5); the component is their sum, at most 1: one skill fully there is a full match.
 */
export const skillsComponent = (skills: ReadonlyArray<SkillWords>, text: ReadonlySet<string>): Component => {
  if (skills.length === 0) return unknown
  let sum = 0
  const reasons: Array<string> = []
  for (const { skill, words: ws } of skills) {
    const share = ws.filter((w) => text.has(w)).length / ws.length
    if (share > 0) {
      sum += share
      reasons.push(`skills:${skill}`)
    }
  }
  return { value: Math.min(1, sum), known: true, reasons }
}

/** 1 at the member's place, falling in a straight line to 0 at `maxKm`; unknown without both places. */
export const distanceComponent = (from: Point | null, to: Point | null, maxKm: number): Component => {
  if (from === null || to === null) return unknown
  const km = distanceKm(from, to)
  if (km > maxKm) return { value: 0, known: true, reasons: [] }
  return { value: Math.max(0, 1 - km / maxKm), known: true, reasons: [`distance:${Math.round(km)}km`] }
}

/**
 * The share of the candidate's days (all seven when it names only parts of the day) on which the member is free
 * at one of the candidate's parts of the day (all three when it names only days).
 */
export const availabilityComponent = (member: Availability, candidate: TextAvailability): Component => {
  if (!saysAvailability(member) || (candidate.days.size === 0 && candidate.slots.size === 0)) return unknown
  const days = candidate.days.size > 0 ? [...candidate.days] : WEEKDAYS
  const slots = candidate.slots.size > 0 ? candidate.slots : new Set(SLOTS)
  const together = days.filter((day) => (member[day] ?? []).some((slot) => slots.has(slot)))
  return {
    value: together.length / days.length,
    known: true,
    reasons: together.map((day) => `availability:${day}`)
  }
}

/** The weighted mean of the components, 0 when every weight is 0; rounded to 4 decimals (as stored). */
export const weightedScore = (
  components: { readonly [K in ComponentName]: Component },
  weights: MatchWeights
): number => {
  const names: ReadonlyArray<ComponentName> = ["category", "skills", "distance", "availability"]
  const total = names.reduce((sum, name) => sum + weights[name], 0)
  if (total <= 0) return 0
  const sum = names.reduce((acc, name) => acc + weights[name] * components[name].value, 0)
  return Math.round((sum / total) * 10_000) / 10_000
}

/** Scores a candidate for a member. `skills` are the member's, prepared once with {@link skillWords}. */
export const scoreMatch = (
  seeker: Seeker,
  skills: ReadonlyArray<SkillWords>,
  candidate: Candidate,
  weights: MatchWeights
): Scored => {
  const components = {
    category: categoryComponent(seeker, candidate),
    skills: skillsComponent(skills, new Set(words(candidate.text))),
    distance: distanceComponent(seeker.point, candidate.point, seeker.maxDistanceKm),
    availability: availabilityComponent(seeker.availability, availabilityOf(candidate.text))
  }
  // A component weighted 0 does not make a match, so it names nothing.
  const reasons = (Object.keys(components) as Array<ComponentName>)
    .filter((name) => weights[name] > 0)
    .flatMap((name) => components[name].reasons)
  return { score: weightedScore(components, weights), reasons, components }
}

/** A match needs a reason (something that fits, not only neutral guesses) and at least the minimum score. */
export const isMatch = (scored: Scored, minScore: number) => scored.reasons.length > 0 && scored.score >= minScore

/** The weights to score with: all zero (possible through the ranking area's own route) falls back to the defaults. */
export const effectiveWeights = (weights: MatchWeights): MatchWeights =>
  weights.category + weights.skills + weights.distance + weights.availability > 0 ? weights : DEFAULT_WEIGHTS
