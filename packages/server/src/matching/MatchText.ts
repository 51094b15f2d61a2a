import type { Availability, DaySlot, Weekday } from "@timebank/domain"

/**
 * Pure text helpers of matching: the words of a text (for skills) and the days and parts of the day a text names
 * (for availability). Both sides of a comparison go through the same functions, so their simplifications agree.
 */

/** Words too common to say anything about a skill. */
const STOPWORDS = new Set([
  "and",
  "the",
  "for",
  "with",
  "you",
  "your",
  "our",
  "can",
  "any",
  "are",
  "from",
  "that",
  "this",
  "will",
  "have",
  "help",
  "need",
  "some",
  "who",
  "und",
  "der",
  "die",
  "das",
  "les",
  "des",
  "por",
  "para",
  "con"
])

const SUFFIXES = ["ings", "ing", "ers", "er", "es", "s", "ed"] as const

/** A light stemmer: "gardening", "gardener", "gardens" → "garden"; keeps at least four letters. */
export const stem = (word: string): string => {
  for (const suffix of SUFFIXES) {
    if (word.endsWith(suffix) && word.length - suffix.length >= 4) return word.slice(0, -suffix.length)
  }
  return word
}

/** The stemmed words of a text: letters and digits, lower case, three characters or more, no stopwords. */
export const words = (text: string): ReadonlyArray<string> =>
  (text.toLowerCase().normalize("NFKC").match(/[\p{L}\p{N}]+/gu) ?? [])
    .filter((w) => w.length >= 3 && !STOPWORDS.has(w))
    .map(stem)

export const wordSet = (text: string): ReadonlySet<string> => new Set(words(text))

export const WEEKDAYS: ReadonlyArray<Weekday> = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
export const SLOTS: ReadonlyArray<DaySlot> = ["morning", "afternoon", "evening"]

const DAY_WORDS: ReadonlyArray<readonly [RegExp, ReadonlyArray<Weekday>]> = [
  [/\bmondays?\b/, ["mon"]],
  [/\btuesdays?\b/, ["tue"]],
  [/\bwednesdays?\b/, ["wed"]],
  [/\bthursdays?\b/, ["thu"]],
  [/\bfridays?\b/, ["fri"]],
  [/\bsaturdays?\b/, ["sat"]],
  [/\bsundays?\b/, ["sun"]],
  [/\bweekends?\b/, ["sat", "sun"]],
  [/\bweekdays?\b/, ["mon", "tue", "wed", "thu", "fri"]]
]

const SLOT_WORDS: ReadonlyArray<readonly [RegExp, DaySlot]> = [
  [/\bmornings?\b/, "morning"],
  [/\bafternoons?\b/, "afternoon"],
  [/\bevenings?\b|\bnights?\b/, "evening"]
]

/** When a candidate says it happens: the days and parts of the day its text names (empty = not said). */
export interface TextAvailability {
  readonly days: ReadonlySet<Weekday>
  readonly slots: ReadonlySet<DaySlot>
}

/** "Saturday mornings", "weekday evenings", "weekends": what days and parts of the day a text names. */
export const availabilityOf = (text: string): TextAvailability => {
  const lower = text.toLowerCase()
  const days = new Set<Weekday>()
  for (const [pattern, named] of DAY_WORDS) if (pattern.test(lower)) { for (const d of named) days.add(d) }
  const slots = new Set<DaySlot>()
  for (const [pattern, slot] of SLOT_WORDS) if (pattern.test(lower)) slots.add(slot)
  return { days, slots }
}

/** Whether the member said when they are available. */
export const saysAvailability = (availability: Availability) => WEEKDAYS.some((d) => (availability[d]?.length ?? 0) > 0)
