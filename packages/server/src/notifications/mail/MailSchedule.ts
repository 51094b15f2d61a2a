/**
 * When mail goes: digest times in a community's time zone, retry spacing, expiry and purge ages. Pure, for tests.
 */

export type DigestFrequency = "daily" | "monthly"

/** Daily digests at 08:00, monthly ones on the 1st at 17:00, local time of the community (decisions D12). */
export const DIGEST_TIME: Record<DigestFrequency, { readonly hour: number }> = {
  daily: { hour: 8 },
  monthly: { hour: 17 }
}

const DAY = 86_400_000

/** Pending rows are given up after 7 days past when they were due; sent and failed rows go after 30 days. */
export const EXPIRE_AFTER_MS = 7 * DAY
export const PURGE_AFTER_MS = 30 * DAY

/**
 * How long a row waits for its digest at most, added to the 7 days before it expires: a monthly row queued on the
 * 2nd is due on the 1st of the next month, and must not expire before that digest took it.
 */
export const DUE_GRACE_MS: Record<"instant" | DigestFrequency, number> = { instant: 0, daily: DAY, monthly: 31 * DAY }

/** Spacing of retries after `attempts` failed sends: 1×, 2×, 4× … the base, at most an hour. */
export const retryDelayMs = (attempts: number, baseMs: number): number =>
  Math.min(baseMs * 2 ** Math.max(0, attempts - 1), 3_600_000)

/** A claimed row not finished within this time (the runner died) is taken again. */
export const CLAIM_LEASE_MS = 5 * 60_000

interface LocalParts {
  readonly year: number
  readonly month: number
  readonly day: number
  readonly hour: number
  readonly minute: number
}

const partsIn = (timeZone: string, at: Date): LocalParts => {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone,
    hourCycle: "h23",
    year: "numeric",
    month: "numeric",
    day: "numeric",
    hour: "numeric",
    minute: "numeric"
  }).formatToParts(at)
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? "0")
  return { year: get("year"), month: get("month"), day: get("day"), hour: get("hour"), minute: get("minute") }
}

/** The instant at which the clock in `timeZone` reads this local date and time (month 1-based, may overflow). */
export const zonedTime = (timeZone: string, year: number, month: number, day: number, hour: number): Date => {
  const wanted = Date.UTC(year, month - 1, day, hour)
  let guess = wanted
  // Twice: once for the offset, once more in case that offset crossed a daylight-saving change.
  for (let i = 0; i < 2; i++) {
    const p = partsIn(timeZone, new Date(guess))
    const shown = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute)
    guess += wanted - shown
  }
  return new Date(guess)
}

/** The latest digest time of `frequency` at or before `now` in `timeZone`: rows queued before it are due. */
export const latestDigestTime = (frequency: DigestFrequency, timeZone: string, now: Date): Date => {
  const local = partsIn(timeZone, now)
  const { hour } = DIGEST_TIME[frequency]
  if (frequency === "daily") {
    const today = zonedTime(timeZone, local.year, local.month, local.day, hour)
    return today.getTime() <= now.getTime() ? today : zonedTime(timeZone, local.year, local.month, local.day - 1, hour)
  }
  const thisMonth = zonedTime(timeZone, local.year, local.month, 1, hour)
  return thisMonth.getTime() <= now.getTime() ? thisMonth : zonedTime(timeZone, local.year, local.month - 1, 1, hour)
}

/** The first digest time of `frequency` after `at` in `timeZone`. */
export const nextDigestTime = (frequency: DigestFrequency, timeZone: string, at: Date): Date => {
  const local = partsIn(timeZone, at)
  const { hour } = DIGEST_TIME[frequency]
  const candidate = frequency === "daily"
    ? zonedTime(timeZone, local.year, local.month, local.day, hour)
    : zonedTime(timeZone, local.year, local.month, 1, hour)
  if (candidate.getTime() > at.getTime()) return candidate
  return frequency === "daily"
    ? zonedTime(timeZone, local.year, local.month, local.day + 1, hour)
    : zonedTime(timeZone, local.year, local.month + 1, 1, hour)
}
