import {
  type ApprovalStats,
  type DecideMatch,
  DomainEvents,
  type ListApprovalsParams,
  MatchAlreadyProcessed,
  type MatchId,
  type MatchingStats,
  NotFound,
  offsetMeta,
  type UpdateMatchingConfig
} from "@timebank/domain"
import { Effect, Option } from "effect"
import { Outbox } from "../platform/Outbox.js"
import { offsetPage } from "../platform/Paging.js"
import { requireTenantAdmin, TenantAdmin } from "../platform/Policy.js"
import { TenantSql } from "../platform/TenantSql.js"
import { MatchingConfigService } from "./MatchingConfigService.js"
import { MatchingProfileRepo } from "./MatchingProfileRepo.js"
import { MatchRepo } from "./MatchRepo.js"
import { MatchViews } from "./MatchViews.js"

export const DEFAULT_APPROVALS_PER_PAGE = 20

const notFound = () => NotFound.of("Match")

const round4 = (n: number) => Math.round(n * 10_000) / 10_000

/**
 * Matching administration (decisions D17 "Matching"): configuration, statistics, clearing the computed matches and
 * the approvals queue. Every method needs `TenantAdmin` (a community admin or a platform super-admin).
 */
export class MatchingAdminService extends Effect.Service<MatchingAdminService>()("MatchingAdminService", {
  dependencies: [
    MatchRepo.Default,
    MatchingProfileRepo.Default,
    MatchingConfigService.Default,
    MatchViews.Default,
    Outbox.Default,
    TenantSql.Default
  ],
  effect: Effect.gen(function*() {
    const repo = yield* MatchRepo
    const profiles = yield* MatchingProfileRepo
    const configs = yield* MatchingConfigService
    const views = yield* MatchViews
    const outbox = yield* Outbox
    const db = yield* TenantSql

    const config = Effect.fn("MatchingAdmin.config")(function*() {
      yield* TenantAdmin
      return yield* configs.current
    }, requireTenantAdmin)

    const updateConfig = Effect.fn("MatchingAdmin.updateConfig")(function*(patch: UpdateMatchingConfig) {
      const actor = yield* TenantAdmin
      return yield* configs.update(patch, actor.userId)
    }, requireTenantAdmin)

    const clearCache = Effect.fn("MatchingAdmin.clearCache")(function*() {
      yield* TenantAdmin
      return { cleared: yield* db.transaction(repo.clearUndecided) }
    }, requireTenantAdmin)

    const stats = Effect.fn("MatchingAdmin.stats")(function*() {
      yield* TenantAdmin
      const [counts, withProfile, computed] = yield* Effect.all([
        repo.statusCounts,
        profiles.count,
        repo.computedMembers
      ])
      const of = (status: string) => counts.find((c) => c.status === status)
      const count = (status: string) => of(status)?.n ?? 0
      const scored = counts.filter((c) => c.status !== "rejected")
      const n = scored.reduce((sum, c) => sum + c.n, 0)
      return {
        members_with_profile: withProfile,
        members_computed: computed,
        matches: counts.reduce((sum, c) => sum + c.n, 0),
        visible: count("visible"),
        pending: count("pending"),
        approved: count("approved"),
        rejected: count("rejected"),
        average_score: n === 0 ? null : round4(scored.reduce((sum, c) => sum + c.score_sum, 0) / n)
      } satisfies MatchingStats
    }, requireTenantAdmin)

    const approvals = Effect.fn("MatchingAdmin.approvals")(function*(params: ListApprovalsParams) {
      yield* TenantAdmin
      const { page, perPage } = offsetPage(params, DEFAULT_APPROVALS_PER_PAGE)
      const result = yield* repo.approvals({ status: params.status, userId: params.user_id, page, perPage })
      return { data: yield* views.admin(result.rows), meta: offsetMeta(page, perPage, result.total) }
    }, requireTenantAdmin)

    const approvalStats = Effect.fn("MatchingAdmin.approvalStats")(function*() {
      yield* TenantAdmin
      const counts = yield* repo.statusCounts
      const count = (status: string) => counts.find((c) => c.status === status)?.n ?? 0
      return {
        pending: count("pending"),
        approved: count("approved"),
        rejected: count("rejected")
      } satisfies ApprovalStats
    }, requireTenantAdmin)

    const one = (id: MatchId) =>
      Effect.flatMap(
        repo.findApproval(id),
        Option.match({ onNone: () => Effect.fail(notFound()), onSome: Effect.succeed })
      )

    const approval = Effect.fn("MatchingAdmin.approval")(function*(id: MatchId) {
      yield* TenantAdmin
      const [view] = yield* views.admin([yield* one(id)])
      return view!
    }, requireTenantAdmin)

    /** `pending` → approved or rejected, with the event in the same transaction; decided already → 409. */
    const decide = (id: MatchId, status: "approved" | "rejected", body: DecideMatch) =>
      Effect.gen(function*() {
        const actor = yield* TenantAdmin
        const row = yield* db.transaction(Effect.gen(function*() {
          const found = yield* one(id)
          const decided = yield* repo.decide(id, status, actor.userId, body?.note || null)
          if (Option.isNone(decided)) {
            const was = found.status === "pending" ? "decided" : found.status
            return yield* new MatchAlreadyProcessed({ message: `The match was ${was} already` })
          }
          const m = decided.value
          yield* outbox.append(
            status === "approved"
              ? new DomainEvents.MatchApproved({
                match_id: m.id,
                user_id: m.user_id,
                target_type: m.target_type,
                target_id: m.target_id,
                title: m.title,
                approved_by: actor.userId
              })
              : new DomainEvents.MatchRejected({
                match_id: m.id,
                user_id: m.user_id,
                target_type: m.target_type,
                target_id: m.target_id,
                rejected_by: actor.userId
              })
          )
          return m
        }))
        const [view] = yield* views.admin([row])
        return view!
      })

    const approve = Effect.fn("MatchingAdmin.approve")(
      (id: MatchId, body: DecideMatch) => decide(id, "approved", body),
      requireTenantAdmin
    )
    const reject = Effect.fn("MatchingAdmin.reject")(
      (id: MatchId, body: DecideMatch) => decide(id, "rejected", body),
      requireTenantAdmin
    )

    return { config, updateConfig, clearCache, stats, approvals, approvalStats, approval, approve, reject } as const
  })
}) {}
