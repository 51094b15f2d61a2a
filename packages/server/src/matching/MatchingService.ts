import {
  type ListMatchesParams,
  MATCHES_DEFAULT,
  type MatchProfile,
  type UpdateMatchProfile,
  ValidationFailed
} from "@timebank/domain"
import { Array as Arr, DateTime, Effect, Option } from "effect"
import { ProfileService } from "../identity/ProfileService.js"
import { ListingCandidates } from "../listings/ListingCandidates.js"
import { CommunityMember, requireCommunityMember } from "../platform/Policy.js"
import { MatchComputation } from "./MatchComputation.js"
import { MatchingConfigService } from "./MatchingConfigService.js"
import { MatchingProfileRepo, type MatchingProfileRow } from "./MatchingProfileRepo.js"
import { MatchRepo } from "./MatchRepo.js"
import { toMatch } from "./MatchViews.js"

const asProfile = (row: Option.Option<MatchingProfileRow>, location: string | null): MatchProfile =>
  Option.match(row, {
    onNone: () => ({
      skills: [],
      availability: {},
      categories: [],
      max_distance_km: null,
      location,
      updated_at: null
    }),
    onSome: (p) => ({
      skills: p.skills,
      availability: p.availability,
      categories: p.categories,
      max_distance_km: p.max_distance_km,
      location,
      updated_at: DateTime.unsafeFromDate(p.updated_at)
    })
  })

/** Skills once each, ignoring case; the first spelling wins. */
const distinctSkills = (skills: ReadonlyArray<string>) => {
  const seen = new Set<string>()
  return skills.filter((skill) => {
    const key = skill.toLowerCase()
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}

/**
 * A member's matching profile and suggestions (decisions D17 "Matching"). Only members of the community (not a
 * visiting platform super-admin) have them.
 */
export class MatchingService extends Effect.Service<MatchingService>()("MatchingService", {
  dependencies: [
    MatchRepo.Default,
    MatchingProfileRepo.Default,
    MatchComputation.Default,
    MatchingConfigService.Default,
    ListingCandidates.Default,
    ProfileService.Default
  ],
  effect: Effect.gen(function*() {
    const repo = yield* MatchRepo
    const profiles = yield* MatchingProfileRepo
    const computation = yield* MatchComputation
    const configs = yield* MatchingConfigService
    const listings = yield* ListingCandidates
    const members = yield* ProfileService

    const location = (userId: number) =>
      members.publicProfile(userId).pipe(
        Effect.map((p) => p.location),
        Effect.catchTag("NotFound", () => Effect.succeed(null))
      )

    const profile = Effect.fn("Matching.profile")(function*() {
      const actor = yield* CommunityMember
      return asProfile(yield* profiles.find(actor.userId), yield* location(actor.userId))
    }, requireCommunityMember("have a matching profile"))

    /** Each given key replaces its value; categories must be listing categories of this community. */
    const updateProfile = Effect.fn("Matching.updateProfile")(function*(patch: UpdateMatchProfile) {
      const actor = yield* CommunityMember
      if (patch.categories !== undefined) {
        const known = yield* listings.listingCategories(patch.categories)
        const issues = patch.categories.flatMap((id, i) =>
          known.has(id) ? [] : [{ field: `categories.${i}`, message: "is not a listing category of this community" }]
        )
        if (Arr.isNonEmptyReadonlyArray(issues)) return yield* new ValidationFailed({ issues })
      }
      const before = asProfile(yield* profiles.find(actor.userId), null)
      const saved = yield* profiles.save(actor.userId, {
        skills: distinctSkills(patch.skills ?? before.skills),
        availability: patch.availability ?? before.availability,
        categories: patch.categories ?? before.categories,
        maxDistanceKm: patch.max_distance_km === undefined ? before.max_distance_km : patch.max_distance_km
      })
      return asProfile(Option.some(saved), yield* location(actor.userId))
    }, requireCommunityMember("have a matching profile"))

    /** The member's suggestions, best first, computed first when stale. */
    const list = Effect.fn("Matching.list")(function*(params: ListMatchesParams) {
      const actor = yield* CommunityMember
      const config = yield* configs.current
      const computedAt = yield* computation.ensureFresh(actor.userId, config)
      const rows = yield* repo.shownTo(actor.userId, params.target_type, params.limit ?? MATCHES_DEFAULT)
      const total = yield* repo.countShownTo(actor.userId, params.target_type)
      return { data: rows.map(toMatch), meta: { total, computed_at: DateTime.unsafeFromDate(computedAt) } }
    }, requireCommunityMember("have matches"))

    return { profile, updateProfile, list } as const
  })
}) {}
