import { type AwardSource, CurrentTenant, DomainEvents } from "@timebank/domain"
import { Effect } from "effect"
import { Outbox } from "../platform/Outbox.js"
import { TenantSql } from "../platform/TenantSql.js"
import { AwardRepo, type NewAward } from "./AwardRepo.js"
import { BadgeRepo } from "./BadgeRepo.js"

const awardedEvent = (award: NewAward, source: AwardSource, by: number | null) =>
  new DomainEvents.BadgeAwarded({
    badge_id: award.badge_id,
    badge_key: award.key,
    badge_name: award.name,
    user_id: award.user_id,
    source,
    awarded_by: by
  })

/**
 * Giving badges, whoever asks (the outbox subscriber, the admin routes, the `badges.recheck` job): every new award
 * raises `BadgeAwarded` in the same transaction (the member's `badge_awarded` bell follows from it), and an award
 * that exists already is never written or announced twice.
 */
export class BadgeAwards extends Effect.Service<BadgeAwards>()("BadgeAwards", {
  dependencies: [TenantSql.Default, BadgeRepo.Default, AwardRepo.Default, Outbox.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const badges = yield* BadgeRepo
    const awards = yield* AwardRepo
    const outbox = yield* Outbox
    // Communities whose catalogue this process saw installed: the statement is idempotent, this only saves it.
    const installed = new Set<number>()

    /** The default catalogue, installed the first time gamification is used in the community. */
    const ensureCatalogue = Effect.gen(function*() {
      const tenant = yield* CurrentTenant
      if (installed.has(tenant.id)) return
      yield* badges.installCatalogue
      installed.add(tenant.id)
    })

    const announce = (added: ReadonlyArray<NewAward>, source: AwardSource, by: number | null) =>
      Effect.as(outbox.appendAll(added.map((a) => awardedEvent(a, source, by))), added)

    /**
     * Awards what the members' recorded progress earns (every member when `userIds` is null); joins the caller's
     * transaction when there is one. Answers the new awards.
     */
    const awardEarned = (userIds: ReadonlyArray<number> | null) =>
      db.transaction(Effect.flatMap(awards.awardEarned(userIds), (added) => announce(added, "criteria", null)))

    /** The catalogue first (a community's first recheck sees its defaults), then what the progress earns. */
    const recheck = (userIds: ReadonlyArray<number> | null) =>
      Effect.zipRight(ensureCatalogue, Effect.map(awardEarned(userIds), (added) => added.length))

    /** One badge to each of `userIds` (members of this community) who lacks it. */
    const awardMany = (badgeId: number, userIds: ReadonlyArray<number>, source: AwardSource, by: number | null) =>
      db.transaction(
        Effect.flatMap(awards.awardMany(badgeId, userIds, source, by), (added) => announce(added, source, by))
      )

    return { ensureCatalogue, awardEarned, recheck, awardMany } as const
  })
}) {}
