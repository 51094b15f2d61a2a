import {
  AdminGroup,
  type AdminGroupMembersParams,
  type AdminListGroupsParams,
  type AdminUpdateGroup,
  DomainEvents,
  GroupAlreadyProcessed,
  type GroupAlreadyProcessed as AlreadyProcessed,
  type GroupId,
  type GroupRecommendationsParams,
  GroupStateConflict,
  type GroupStatus,
  NotFound,
  offsetMeta,
  RECOMMENDATIONS_DEFAULT,
  type UpdateFeaturedGroups,
  ValidationFailed
} from "@timebank/domain"
import { DateTime, Effect, Option } from "effect"
import { Outbox } from "../../platform/Outbox.js"
import { offsetPage } from "../../platform/Paging.js"
import { requireTenantAdmin, TenantAdmin } from "../../platform/Policy.js"
import { TenantSql } from "../../platform/TenantSql.js"
import { snapshotOf } from "../GroupEvents.js"
import { GroupMemberRepo } from "../GroupMemberRepo.js"
import { groupNotFound } from "../GroupsPolicy.js"
import { GroupsService } from "../GroupsService.js"
import { GroupTransfer } from "../GroupTransfer.js"
import { GroupViews } from "../GroupViews.js"
import { GroupPolicies } from "../types/GroupPolicies.js"
import { type AdminGroupRow, GroupAdminRepo } from "./GroupAdminRepo.js"
import { ACTIVITY_WINDOW_DAYS, GroupAnalyticsService } from "./GroupAnalytics.js"
import { GroupRecommendations } from "./GroupRecommendations.js"

export const DEFAULT_ADMIN_GROUPS_PER_PAGE = 20

type PageParams = { readonly page?: number | undefined; readonly per_page?: number | undefined }

/**
 * Where an admin may move a group (decisions D17, `PUT /admin/groups/{id}/status`): a waiting group is approved or
 * rejected; a live one is put to sleep, archived or woken; a rejected one is reviewed again or made active.
 */
export const STATUS_TRANSITIONS: Readonly<Record<GroupStatus, ReadonlyArray<GroupStatus>>> = {
  pending_review: ["active", "rejected"],
  active: ["dormant", "archived"],
  dormant: ["active", "archived"],
  archived: ["active", "dormant"],
  rejected: ["pending_review", "active"]
}

const found = <A>(row: Option.Option<A>) =>
  Option.match(row, { onNone: () => Effect.fail(groupNotFound()), onSome: Effect.succeed })

const alreadyProcessed = (status: GroupStatus): AlreadyProcessed =>
  new GroupAlreadyProcessed({ message: `The group no longer waits for review (it is ${status})` })

/** Groups administration (decisions D17 "Groups admin"): tenant admins and platform super-admins. */
export class GroupsAdminService extends Effect.Service<GroupsAdminService>()("GroupsAdminService", {
  dependencies: [
    GroupAdminRepo.Default,
    GroupMemberRepo.Default,
    GroupViews.Default,
    GroupsService.Default,
    GroupPolicies.Default,
    GroupTransfer.Default,
    GroupAnalyticsService.Default,
    GroupRecommendations.Default,
    Outbox.Default,
    TenantSql.Default
  ],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const repo = yield* GroupAdminRepo
    const members = yield* GroupMemberRepo
    const views = yield* GroupViews
    const groups = yield* GroupsService
    const policies = yield* GroupPolicies
    const transfer = yield* GroupTransfer
    const stats = yield* GroupAnalyticsService
    const recommender = yield* GroupRecommendations
    const outbox = yield* Outbox

    /** The groups as admins see them: the member view (four queries a page) and one query for the counts. */
    const adminViews = (rows: ReadonlyArray<AdminGroupRow>, viewerId: number) =>
      Effect.map(
        Effect.all([views.groups(rows, viewerId), repo.memberCounts(rows.map((r) => r.id))], { concurrency: 2 }),
        ([groupViews, counts]) =>
          groupViews.map((view, i) => {
            const row = rows[i]!
            return AdminGroup.make({
              ...view,
              member_counts: counts.get(row.id) ?? { active: 0, pending: 0, banned: 0 },
              is_featured: row.featured_at !== null,
              featured_at: row.featured_at === null ? null : DateTime.unsafeFromDate(row.featured_at)
            })
          })
      )
    const adminView = (row: AdminGroupRow, viewerId: number) => Effect.map(adminViews([row], viewerId), (v) => v[0]!)

    const offsetList = (
      page: number,
      perPage: number,
      viewerId: number,
      result: { readonly rows: ReadonlyArray<AdminGroupRow>; readonly total: number }
    ) =>
      Effect.map(adminViews(result.rows, viewerId), (data) => ({ data, meta: offsetMeta(page, perPage, result.total) }))

    const pageOf = (params: PageParams) => offsetPage(params, DEFAULT_ADMIN_GROUPS_PER_PAGE)

    const list = Effect.fn("GroupsAdmin.list")(function*(params: AdminListGroupsParams) {
      const admin = yield* TenantAdmin
      const { page, perPage } = pageOf(params)
      const result = yield* repo.list({
        page,
        perPage,
        status: params.status,
        typeId: params.type_id,
        visibility: params.visibility,
        featured: params.featured,
        search: params.search,
        ownerId: params.owner_id
      })
      return yield* offsetList(page, perPage, admin.userId, result)
    }, requireTenantAdmin)

    const approvals = Effect.fn("GroupsAdmin.approvals")(function*(params: PageParams) {
      const admin = yield* TenantAdmin
      const { page, perPage } = pageOf(params)
      return yield* offsetList(page, perPage, admin.userId, yield* repo.pending(page, perPage))
    }, requireTenantAdmin)

    const featured = Effect.fn("GroupsAdmin.featured")(function*(params: PageParams) {
      const admin = yield* TenantAdmin
      const { page, perPage } = pageOf(params)
      return yield* offsetList(page, perPage, admin.userId, yield* repo.featured(page, perPage))
    }, requireTenantAdmin)

    const get = Effect.fn("GroupsAdmin.get")(function*(id: GroupId) {
      const admin = yield* TenantAdmin
      return yield* adminView(yield* found(yield* repo.find(id)), admin.userId)
    }, requireTenantAdmin)

    /**
     * Moves the group from `current` to `to` in one transaction with its events: `GroupUpdated` always (partners
     * and subscribers follow statuses), `GroupApproved` / `GroupRejected` when a review ends (the owner's bell).
     */
    const moveStatus = <E>(
      current: AdminGroupRow,
      to: GroupStatus,
      adminId: number,
      onRace: () => E,
      reason: string | null = null
    ) =>
      db.transaction(Effect.gen(function*() {
        const row = yield* Option.match(yield* repo.setStatus(current.id, [current.status], to), {
          onNone: () => Effect.fail(onRace()),
          onSome: Effect.succeed
        })
        const reviewed = current.status === "pending_review" || current.status === "rejected"
        yield* outbox.appendAll([
          new DomainEvents.GroupUpdated({
            group_id: row.id,
            fields: ["status"],
            previous_status: current.status,
            group: snapshotOf(row),
            updated_by: adminId
          }),
          ...(to === "active" && reviewed
            ? [
              new DomainEvents.GroupApproved({
                group_id: row.id,
                group_name: row.name,
                owner_id: row.owner_id,
                approved_by: adminId
              })
            ]
            : []),
          ...(to === "rejected"
            ? [
              new DomainEvents.GroupRejected({
                group_id: row.id,
                group_name: row.name,
                owner_id: row.owner_id,
                reason,
                rejected_by: adminId
              })
            ]
            : [])
        ])
        return row
      }))

    const review = (id: GroupId, to: "active" | "rejected", reason: string | null) =>
      Effect.gen(function*() {
        const admin = yield* TenantAdmin
        const current = yield* found(yield* repo.find(id))
        if (current.status !== "pending_review") return yield* alreadyProcessed(current.status)
        const row = yield* moveStatus(current, to, admin.userId, () => alreadyProcessed(to), reason)
        return yield* adminView(row, admin.userId)
      })

    const approve = Effect.fn("GroupsAdmin.approve")(function*(id: GroupId) {
      return yield* review(id, "active", null)
    }, requireTenantAdmin)

    const reject = Effect.fn("GroupsAdmin.reject")(function*(id: GroupId, reason: string | null) {
      return yield* review(id, "rejected", reason === "" ? null : reason)
    }, requireTenantAdmin)

    const setStatus = Effect.fn("GroupsAdmin.setStatus")(function*(id: GroupId, to: GroupStatus) {
      const admin = yield* TenantAdmin
      const current = yield* found(yield* repo.find(id))
      const conflict = () =>
        new GroupStateConflict({
          message: `A ${current.status} group cannot become ${to}; allowed: ${
            STATUS_TRANSITIONS[current.status].join(", ")
          }`
        })
      if (!STATUS_TRANSITIONS[current.status].includes(to)) return yield* conflict()
      return yield* adminView(yield* moveStatus(current, to, admin.userId, conflict), admin.userId)
    }, requireTenantAdmin)

    const toggleFeatured = Effect.fn("GroupsAdmin.toggleFeatured")(function*(id: GroupId) {
      const admin = yield* TenantAdmin
      const current = yield* found(yield* repo.find(id))
      const toggled = yield* repo.toggleFeatured(id)
      if (Option.isNone(toggled)) {
        return yield* new GroupStateConflict({
          message: `Only active groups can be featured; this one is ${current.status}`
        })
      }
      return yield* adminView(toggled.value, admin.userId)
    }, requireTenantAdmin)

    const updateFeatured = Effect.fn("GroupsAdmin.updateFeatured")(function*(payload: UpdateFeaturedGroups) {
      const admin = yield* TenantAdmin
      const ids = [...new Set(payload.group_ids)]
      const active = yield* repo.activeAmong(ids)
      const issues = payload.group_ids.flatMap((id, i) =>
        active.has(id) ? [] : [{ field: `group_ids.${i}`, message: "is not an active group of this community" }]
      )
      if (issues.length > 0) return yield* new ValidationFailed({ issues: [issues[0]!, ...issues.slice(1)] })
      yield* db.transaction(repo.replaceFeatured(ids))
      return yield* adminViews(yield* repo.findMany(ids), admin.userId)
    }, requireTenantAdmin)

    const update = Effect.fn("GroupsAdmin.update")(function*(id: GroupId, payload: AdminUpdateGroup) {
      const admin = yield* TenantAdmin
      const current = yield* found(yield* repo.find(id))
      const { owner_id: ownerId, ...fields } = payload
      const newOwner = ownerId === undefined || ownerId === current.owner_id
        ? Option.none()
        : Option.some(
          yield* Effect.flatMap(
            members.find(id, ownerId),
            (membership) =>
              Option.isSome(membership) && membership.value.status !== "banned"
                ? Effect.succeed(membership.value)
                : Effect.fail(ValidationFailed.field("owner_id", "is not a member of this group (or is banned)"))
          )
        )
      yield* db.transaction(Effect.gen(function*() {
        if (Object.keys(fields).length > 0) yield* groups.update(id, fields)
        if (Option.isSome(newOwner)) {
          const group = yield* found(yield* repo.find(id))
          // A pending member handed the group takes a seat: the type's max_members holds here too.
          if (newOwner.value.status !== "active") yield* policies.takeSeat(id)
          yield* transfer.handOver({ actor: admin, group, membership: Option.none(), isAdmin: true }, newOwner.value)
        }
      }))
      return yield* adminView(yield* found(yield* repo.find(id)), admin.userId)
    }, requireTenantAdmin)

    const remove = Effect.fn("GroupsAdmin.delete")(function*(id: GroupId) {
      yield* TenantAdmin
      return yield* groups.remove(id)
    }, requireTenantAdmin)

    const groupMembers = Effect.fn("GroupsAdmin.members")(function*(id: GroupId, params: AdminGroupMembersParams) {
      yield* TenantAdmin
      const { page, perPage } = pageOf(params)
      yield* found(yield* repo.find(id))
      const result = yield* repo.members({ groupId: id, page, perPage, status: params.status, role: params.role })
      const data = yield* views.memberships(result.rows)
      return { data, meta: offsetMeta(page, perPage, result.total) }
    }, requireTenantAdmin)

    const recommendations = Effect.fn("GroupsAdmin.recommendations")(function*(params: GroupRecommendationsParams) {
      const admin = yield* TenantAdmin
      const since = new Date(Date.now() - ACTIVITY_WINDOW_DAYS * 86_400_000)
      const ranked = yield* recommender.forMember(params.user_id, params.limit ?? RECOMMENDATIONS_DEFAULT, since)
      if (Option.isNone(ranked)) return yield* NotFound.of("Member")
      const groupViews = yield* adminViews(ranked.value.map((r) => r.row), admin.userId)
      return ranked.value.map((r, i) => ({
        group: groupViews[i]!,
        score: r.score,
        reasons: r.reasons,
        connections: r.connections
      }))
    }, requireTenantAdmin)

    const analytics = Effect.fn("GroupsAdmin.analytics")(function*() {
      yield* TenantAdmin
      return yield* stats.analytics
    }, requireTenantAdmin)

    return {
      list,
      approvals,
      featured,
      get,
      approve,
      reject,
      setStatus,
      toggleFeatured,
      updateFeatured,
      update,
      remove,
      members: groupMembers,
      recommendations,
      analytics
    } as const
  })
}) {}
