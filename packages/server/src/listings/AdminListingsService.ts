import {
  type AdminListListingsParams,
  DomainEvents,
  type ListingDeleted,
  type ListingId,
  ListingNotPending,
  type ModerationQueueParams,
  type ModerationStats,
  offsetMeta
} from "@timebank/domain"
import { DateTime, Effect, Option } from "effect"
import { Outbox } from "../platform/Outbox.js"
import { offsetPage } from "../platform/Paging.js"
import { requireTenantAdmin, TenantAdmin } from "../platform/Policy.js"
import { TenantSql } from "../platform/TenantSql.js"
import { ListingRepo, type ListingRow } from "./ListingRepo.js"
import { listingDeletedEvent, listingNotFound } from "./ListingsService.js"
import { ListingViews } from "./ListingViews.js"

export const DEFAULT_ADMIN_LISTINGS_PER_PAGE = 20

const found = <A>(row: Option.Option<A>) =>
  Option.match(row, { onNone: () => Effect.fail(listingNotFound()), onSome: Effect.succeed })

/**
 * Listing moderation for community admins (tenant admin or platform super-admin). Not gated on the `listings`
 * feature: admins still review and clean up while members cannot use listings.
 */
export class AdminListingsService extends Effect.Service<AdminListingsService>()("AdminListingsService", {
  dependencies: [ListingRepo.Default, ListingViews.Default, Outbox.Default, TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const repo = yield* ListingRepo
    const views = yield* ListingViews
    const outbox = yield* Outbox

    const offsetList = (page: number, perPage: number, result: { rows: ReadonlyArray<ListingRow>; total: number }) =>
      Effect.map(views.many(result.rows), (data) => ({ data, meta: offsetMeta(page, perPage, result.total) }))

    const list = Effect.fn("AdminListings.list")(function*(params: AdminListListingsParams) {
      yield* TenantAdmin
      const { page, perPage } = offsetPage(params, DEFAULT_ADMIN_LISTINGS_PER_PAGE)
      const result = yield* repo.listAll({
        page,
        perPage,
        status: params.status,
        type: params.type,
        userId: params.user_id,
        categoryId: params.category_id,
        search: params.search
      })
      return yield* offsetList(page, perPage, result)
    }, requireTenantAdmin)

    const moderationQueue = Effect.fn("AdminListings.moderationQueue")(function*(params: ModerationQueueParams) {
      yield* TenantAdmin
      const { page, perPage } = offsetPage(params, DEFAULT_ADMIN_LISTINGS_PER_PAGE)
      return yield* offsetList(page, perPage, yield* repo.pending(page, perPage))
    }, requireTenantAdmin)

    const moderationStats = Effect.fn("AdminListings.moderationStats")(function*() {
      yield* TenantAdmin
      const rows = yield* repo.stats
      const pending = rows.find((r) => r.status === "pending")
      const count = (status: string) => rows.find((r) => r.status === status)?.n ?? 0
      return {
        pending: count("pending"),
        active: count("active"),
        total: rows.reduce((sum, r) => sum + r.n, 0),
        oldest_pending_at: pending?.oldest ? DateTime.unsafeFromDate(pending.oldest) : null
      } satisfies ModerationStats
    }, requireTenantAdmin)

    const get = Effect.fn("AdminListings.get")(function*(id: ListingId) {
      yield* TenantAdmin
      return yield* views.one(yield* found(yield* repo.findById(id)))
    }, requireTenantAdmin)

    const remove = Effect.fn("AdminListings.delete")(function*(id: ListingId) {
      const admin = yield* TenantAdmin
      yield* db.transaction(Effect.gen(function*() {
        const row = yield* found(yield* repo.softDelete(id))
        yield* outbox.append(listingDeletedEvent(row, admin.userId))
      }))
      return { id, deleted: true as const } satisfies ListingDeleted
    }, requireTenantAdmin)

    const approve = Effect.fn("AdminListings.approve")(function*(id: ListingId) {
      const admin = yield* TenantAdmin
      const current = yield* found(yield* repo.findById(id))
      const notPending = new ListingNotPending({
        message: `Only pending listings can be approved (this one is ${current.status})`
      })
      if (current.status !== "pending") return yield* notPending
      const approved = yield* db.transaction(Effect.gen(function*() {
        // Another moderator may have approved or deleted it since the read above.
        const row = yield* Option.match(yield* repo.approve(id), {
          onNone: () => Effect.fail(notPending),
          onSome: Effect.succeed
        })
        yield* outbox.append(
          new DomainEvents.ListingUpdated({
            listing_id: id,
            user_id: row.user_id,
            fields: ["status"],
            previous_status: current.status,
            status: row.status,
            updated_by: admin.userId
          })
        )
        return row
      }))
      return yield* views.one(approved)
    }, requireTenantAdmin)

    return { list, moderationQueue, moderationStats, get, remove, approve } as const
  })
}) {}
