import {
  AlreadyExists,
  type BadgeId,
  type BadgeRevoked,
  DomainEvents,
  NotFound,
  type Rechecked
} from "@timebank/domain"
import { Effect, Option } from "effect"
import { Outbox } from "../platform/Outbox.js"
import { requireTenantAdmin, TenantAdmin } from "../platform/Policy.js"
import { TenantSql } from "../platform/TenantSql.js"
import { badgeNotFound } from "./AdminGamificationService.js"
import { AwardRepo } from "./AwardRepo.js"
import { BadgeAwards } from "./BadgeAwards.js"
import { BadgeRepo } from "./BadgeRepo.js"
import { GamificationService } from "./GamificationService.js"
import { awardView } from "./GamificationViews.js"

/**
 * One member's badges as admins manage them (spec "Users" rows): list, award by hand, revoke, recheck. The member
 * must be of this community (404 otherwise, as identity's admin routes answer).
 */
export class AdminUserBadgesService extends Effect.Service<AdminUserBadgesService>()("AdminUserBadgesService", {
  dependencies: [
    TenantSql.Default,
    Outbox.Default,
    AwardRepo.Default,
    BadgeRepo.Default,
    BadgeAwards.Default,
    GamificationService.Default
  ],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const outbox = yield* Outbox
    const awards = yield* AwardRepo
    const badges = yield* BadgeRepo
    const awarding = yield* BadgeAwards
    const members = yield* GamificationService

    const list = Effect.fn("AdminUserBadges.list")(function*(userId: number) {
      yield* TenantAdmin
      yield* members.memberHere(userId)
      return yield* members.badgesOf(userId)
    }, requireTenantAdmin)

    const award = Effect.fn("AdminUserBadges.award")(function*(userId: number, badgeId: BadgeId) {
      const admin = yield* TenantAdmin
      yield* members.memberHere(userId)
      const badge = yield* badges.findById(badgeId)
      if (Option.isNone(badge)) return yield* badgeNotFound("badge_id")
      const row = yield* db.transaction(Effect.gen(function*() {
        const row = yield* awards.award(badgeId, userId, "manual", admin.userId)
        if (Option.isSome(row)) {
          yield* outbox.append(
            new DomainEvents.BadgeAwarded({
              badge_id: badgeId,
              badge_key: row.value.key,
              badge_name: row.value.name,
              user_id: userId,
              source: "manual",
              awarded_by: admin.userId
            })
          )
        }
        return row
      }))
      if (Option.isNone(row)) {
        return yield* new AlreadyExists({ message: "The member holds this badge already", field: "badge_id" })
      }
      return awardView(row.value)
    }, requireTenantAdmin)

    const revoke = Effect.fn("AdminUserBadges.revoke")(function*(userId: number, badgeId: BadgeId) {
      yield* TenantAdmin
      yield* members.memberHere(userId)
      if (!(yield* awards.revoke(badgeId, userId))) {
        return yield* new NotFound({ message: "The member does not hold this badge" })
      }
      return { id: badgeId, user_id: userId, deleted: true as const } satisfies BadgeRevoked
    }, requireTenantAdmin)

    const recheck = Effect.fn("AdminUserBadges.recheck")(function*(userId: number) {
      yield* TenantAdmin
      yield* members.memberHere(userId)
      return { awarded: yield* awarding.recheck([userId]) } satisfies Rechecked
    }, requireTenantAdmin)

    const recheckAll = Effect.fn("AdminUserBadges.recheckAll")(function*() {
      yield* TenantAdmin
      return { awarded: yield* awarding.recheck(null) } satisfies Rechecked
    }, requireTenantAdmin)

    return { list, award, revoke, recheck, recheckAll } as const
  })
}) {}
