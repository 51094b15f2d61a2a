import {
  type AdminBadgesParams,
  AlreadyExists,
  type BadgeDeleted,
  type BadgeId,
  type BulkAward,
  type BulkAwarded,
  type CreateBadge,
  type GamificationStats,
  NotFound,
  offsetMeta,
  type Rechecked
} from "@timebank/domain"
import { Effect, Option } from "effect"
import { UserSummaries } from "../identity/UserSummaries.js"
import { offsetPage } from "../platform/Paging.js"
import { requireTenantAdmin, TenantAdmin } from "../platform/Policy.js"
import { BadgeAwards } from "./BadgeAwards.js"
import { BadgeRepo } from "./BadgeRepo.js"
import { GamificationStatsRepo } from "./GamificationStatsRepo.js"
import { badgeView } from "./GamificationViews.js"

export const DEFAULT_ADMIN_PER_PAGE = 20

export const badgeNotFound = (field?: string) =>
  new NotFound({ message: "Badge not found", ...(field === undefined ? {} : { field }) })

/**
 * The community's badges for its admins (decisions D17 "Gamification"): the catalogue (defaults installed on first
 * use, plus the admins' own), statistics, rechecks and bulk awards. Not gated on the `gamification` feature:
 * admins prepare and clean up while members do not see it.
 */
export class AdminGamificationService extends Effect.Service<AdminGamificationService>()("AdminGamificationService", {
  dependencies: [BadgeRepo.Default, BadgeAwards.Default, GamificationStatsRepo.Default, UserSummaries.Default],
  effect: Effect.gen(function*() {
    const badges = yield* BadgeRepo
    const awards = yield* BadgeAwards
    const stats = yield* GamificationStatsRepo
    const users = yield* UserSummaries

    const statistics = Effect.fn("AdminGamification.stats")(function*() {
      yield* TenantAdmin
      yield* awards.ensureCatalogue
      const [totals, top] = yield* Effect.all([stats.totals(new Date()), stats.topBadges])
      return { ...totals, top_badges: top } satisfies GamificationStats
    }, requireTenantAdmin)

    const listBadges = Effect.fn("AdminGamification.listBadges")(function*(params: AdminBadgesParams) {
      yield* TenantAdmin
      yield* awards.ensureCatalogue
      const { page, perPage } = offsetPage(params, DEFAULT_ADMIN_PER_PAGE)
      const { rows, total } = yield* badges.list(page, perPage)
      return { data: rows.map(badgeView), meta: offsetMeta(page, perPage, total) }
    }, requireTenantAdmin)

    const createBadge = Effect.fn("AdminGamification.createBadge")(function*(input: CreateBadge) {
      yield* TenantAdmin
      // The defaults first, so that a key of the catalogue is taken (409) rather than silently kept by the admin.
      yield* awards.ensureCatalogue
      const icon = input.icon === undefined || input.icon === null || input.icon === "" ? null : input.icon
      const row = yield* badges.insert({
        key: input.key,
        name: input.name,
        description: input.description ?? "",
        icon,
        criteria: input.criteria ?? null
      })
      if (Option.isNone(row)) {
        return yield* new AlreadyExists({ message: "A badge with this key exists", field: "key" })
      }
      return badgeView(row.value)
    }, requireTenantAdmin)

    const deleteBadge = Effect.fn("AdminGamification.deleteBadge")(function*(id: BadgeId) {
      yield* TenantAdmin
      if (!(yield* badges.remove(id))) return yield* badgeNotFound()
      return { id, deleted: true as const } satisfies BadgeDeleted
    }, requireTenantAdmin)

    const recheckAll = Effect.fn("AdminGamification.recheckAll")(function*() {
      yield* TenantAdmin
      return { awarded: yield* awards.recheck(null) } satisfies Rechecked
    }, requireTenantAdmin)

    const bulkAward = Effect.fn("AdminGamification.bulkAward")(function*(input: BulkAward) {
      const admin = yield* TenantAdmin
      if (Option.isNone(yield* badges.findById(input.badge_id))) return yield* badgeNotFound("badge_id")
      const named = [...new Set(input.user_ids)]
      // Only members of this community: ids of other communities (or of no one) are skipped, never awarded.
      const here = [...(yield* users.byIds(named)).keys()]
      const added = here.length === 0 ? [] : yield* awards.awardMany(input.badge_id, here, "bulk", admin.userId)
      return { awarded: added.length, skipped: named.length - added.length } satisfies BulkAwarded
    }, requireTenantAdmin)

    return { statistics, listBadges, createBadge, deleteBadge, recheckAll, bulkAward } as const
  })
}) {}
