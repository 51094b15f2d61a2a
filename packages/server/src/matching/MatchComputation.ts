import { CurrentTenant, DomainEvents, type MatchingConfig, type MatchTargetType } from "@timebank/domain"
import { Clock, Effect, Option } from "effect"
import { ProfileService } from "../identity/ProfileService.js"
import { ListingCandidates } from "../listings/ListingCandidates.js"
import { Geocoder } from "../platform/Geocoder.js"
import { Outbox } from "../platform/Outbox.js"
import { TenantSql } from "../platform/TenantSql.js"
import { RankingHealth } from "../tenancy/config/RankingHealth.js"
import { OpportunityCandidates } from "../volunteering/OpportunityCandidates.js"
import { configKeyOf } from "./MatchingConfigService.js"
import { MatchingProfileRepo } from "./MatchingProfileRepo.js"
import { type MatchKey, MatchRepo, type MatchWrite } from "./MatchRepo.js"
import {
  type Candidate,
  DEFAULT_MAX_DISTANCE_KM,
  effectiveWeights,
  isMatch,
  type Point,
  scoreMatch,
  type Seeker,
  skillWords
} from "./MatchScore.js"

/** How long computed matches are reused before the next list recomputes them. */
export const MATCHES_TTL_MS = 10 * 60_000
/** Candidates weighed per source and computation: the newest ones. */
export const CANDIDATES_PER_SOURCE = 500
/** Places resolved at once, and how long a computation waits for them all (the rest count as unknown). */
const GEOCODE_CONCURRENCY = 8
const GEOCODE_BUDGET = "10 seconds"

/** A candidate with what its match row shows. */
interface Weighed extends Candidate {
  readonly targetType: MatchTargetType
  readonly targetId: number
  readonly title: string
  readonly location: string | null
}

const keyOf = (type: MatchTargetType, id: number) => `${type}:${id}`

/** What makes a member's stored matches stale besides their age: configuration, profile and place. */
const stamp = (configKey: string, profileUpdated: Date | null, location: string | null) =>
  JSON.stringify([configKey, profileUpdated?.toISOString() ?? null, location])

/**
 * Computes a member's matches (decisions D17 "Matching"): one read per candidate source (listings, opportunities),
 * the places resolved once each, every candidate scored (MatchScore), the result written in one transaction that
 * holds the member's lock: new matches inserted (`pending` when approval is required), known ones rescored,
 * undecided ones that no longer match deleted; rejected ones never come back.
 */
export class MatchComputation extends Effect.Service<MatchComputation>()("MatchComputation", {
  dependencies: [
    MatchRepo.Default,
    MatchingProfileRepo.Default,
    ListingCandidates.Default,
    OpportunityCandidates.Default,
    ProfileService.Default,
    Outbox.Default,
    TenantSql.Default
  ],
  effect: Effect.gen(function*() {
    const repo = yield* MatchRepo
    const profiles = yield* MatchingProfileRepo
    const listings = yield* ListingCandidates
    const opportunities = yield* OpportunityCandidates
    const members = yield* ProfileService
    const outbox = yield* Outbox
    const db = yield* TenantSql
    // One per process (ServicesLive).
    const geocoder = yield* Geocoder
    const health = yield* RankingHealth

    /** Each distinct place once; unknown, unreachable or too slow → no point. */
    const locate = (texts: ReadonlyArray<string | null>) =>
      Effect.gen(function*() {
        const points = new Map<string, Point>()
        const distinct = [...new Set(texts.filter((t): t is string => t !== null && t.trim() !== ""))]
        yield* Effect.forEach(distinct, (text) =>
          geocoder.geocode(text).pipe(
            Effect.map(Option.map((point) => points.set(text, point))),
            Effect.catchAll(() => Effect.void)
          ), { concurrency: GEOCODE_CONCURRENCY, discard: true }).pipe(
            Effect.timeout(GEOCODE_BUDGET),
            Effect.catchAll(() => Effect.logWarning("matching: geocoding took too long; the rest count as unknown"))
          )
        return (text: string | null): Point | null => (text === null ? null : points.get(text) ?? null)
      })

    /** The member's location text; a caller with no row here (a visiting super-admin) has none. */
    const locationOf = (userId: number) =>
      members.publicProfile(userId).pipe(
        Effect.map((profile) => profile.location),
        Effect.catchTag("NotFound", () => Effect.succeed(null))
      )

    /** The stamp the member's stored matches must carry to be reused. */
    const currentStamp = (userId: number, config: MatchingConfig) =>
      Effect.gen(function*() {
        const profile = yield* profiles.find(userId)
        const location = yield* locationOf(userId)
        return {
          profile,
          location,
          stamp: stamp(
            configKeyOf(config),
            Option.match(profile, { onNone: () => null, onSome: (p) => p.updated_at }),
            location
          )
        }
      })

    const isFresh = (computed: Option.Option<{ computed_at: Date; config_key: string }>, key: string, now: number) =>
      Option.exists(computed, (c) => c.config_key === key && now - c.computed_at.getTime() < MATCHES_TTL_MS)

    /** Scores every candidate; answers the writes of those that match (and of approved ones still there). */
    const weigh = (
      userId: number,
      config: MatchingConfig,
      state: Effect.Effect.Success<ReturnType<typeof currentStamp>>
    ) =>
      Effect.gen(function*() {
        const profile = Option.getOrUndefined(state.profile)
        const [listingRows, opportunityRows, own] = yield* Effect.all([
          listings.othersActive(userId, CANDIDATES_PER_SOURCE),
          opportunities.openFor(userId, CANDIDATES_PER_SOURCE),
          listings.categoriesOf(userId)
        ])
        const candidates: ReadonlyArray<Weighed> = [
          ...listingRows.map((l): Weighed => ({
            targetType: "listing",
            targetId: l.id,
            title: l.title,
            location: l.location,
            listingType: l.type,
            categoryId: l.category_id,
            text: `${l.title} ${l.description}`,
            point: null
          })),
          ...opportunityRows.map((o): Weighed => ({
            targetType: "opportunity",
            targetId: o.id,
            title: o.title,
            location: o.location,
            listingType: null,
            categoryId: null,
            text: `${o.title} ${o.description}`,
            point: null
          }))
        ]
        const pointOf = yield* locate([state.location, ...candidates.map((c) => c.location)])
        const seeker: Seeker = {
          skills: profile?.skills ?? [],
          availability: profile?.availability ?? {},
          interests: new Set(profile?.categories ?? []),
          offers: new Set(own.filter((o) => o.type === "offer").map((o) => o.category_id)),
          requests: new Set(own.filter((o) => o.type === "request").map((o) => o.category_id)),
          point: pointOf(state.location),
          maxDistanceKm: profile?.max_distance_km ?? DEFAULT_MAX_DISTANCE_KM
        }
        const skills = skillWords(seeker.skills)
        const weights = effectiveWeights(config.weights)
        return candidates.map((candidate) => ({
          candidate,
          scored: scoreMatch(seeker, skills, { ...candidate, point: pointOf(candidate.location) }, weights)
        }))
      })

    /** Writes the outcome under the member's lock, unless another request computed them meanwhile. */
    const write = (
      userId: number,
      config: MatchingConfig,
      key: string,
      weighed: Effect.Effect.Success<ReturnType<typeof weigh>>
    ) =>
      db.transaction(Effect.gen(function*() {
        yield* repo.lockMember(userId)
        const now = yield* Clock.currentTimeMillis
        const meanwhile = yield* repo.computationOf(userId)
        if (isFresh(meanwhile, key, now)) return Option.getOrThrow(meanwhile).computed_at
        const existing = new Map<string, MatchKey>(
          (yield* repo.keysOf(userId)).map((row) => [keyOf(row.target_type, row.target_id), row])
        )
        const status = config.approval_required ? "pending" as const : "visible" as const
        const writes: Array<MatchWrite> = []
        for (const { candidate, scored } of weighed) {
          const known = existing.get(keyOf(candidate.targetType, candidate.targetId))
          if (known?.status === "rejected") continue
          // An approved match stays (rescored) while its listing or opportunity is there.
          if (!isMatch(scored, config.min_score) && known?.status !== "approved") continue
          writes.push({
            targetType: candidate.targetType,
            targetId: candidate.targetId,
            score: scored.score,
            reasons: scored.reasons,
            title: candidate.title,
            location: candidate.location,
            categoryId: candidate.categoryId,
            status
          })
        }
        const at = new Date(now)
        const written = yield* repo.upsertMany(userId, writes, at)
        const kept = new Set(writes.map((w) => keyOf(w.targetType, w.targetId)))
        yield* repo.deleteIds(
          [...existing.entries()]
            .filter(([k, row]) => row.status !== "rejected" && !kept.has(k))
            .map(([, row]) => row.id)
        )
        yield* repo.markComputed(userId, key, at)
        const waiting = written.filter((row) => row.inserted && row.status === "pending").length
        if (waiting > 0) {
          yield* outbox.append(new DomainEvents.MatchesAwaitingApproval({ user_id: userId, count: waiting }))
        }
        return at
      }))

    /**
     * Makes sure the member's stored matches are fresh (computed within the TTL, with this configuration, profile
     * and place); computes them otherwise. Measured as the tenant's `matching` ranking. Answers when they were
     * computed.
     */
    const ensureFresh = Effect.fn("MatchComputation.ensureFresh")(function*(userId: number, config: MatchingConfig) {
      const state = yield* currentStamp(userId, config)
      const now = yield* Clock.currentTimeMillis
      const stored = yield* repo.computationOf(userId)
      if (isFresh(stored, state.stamp, now)) return Option.getOrThrow(stored).computed_at
      const tenant = yield* CurrentTenant
      return yield* health.measure(
        tenant.id,
        "matching",
        Effect.flatMap(weigh(userId, config, state), (weighed) => write(userId, config, state.stamp, weighed))
      )
    })

    return { ensureFresh } as const
  })
}) {}
