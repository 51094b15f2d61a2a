import {
  type AttributeValues,
  type AttributeValuesInput,
  type CreateListing,
  CurrentTenant,
  CurrentUser,
  CursorPage,
  cursorPage,
  DomainEvents,
  encodeCursor,
  Listing,
  type ListingDeleted,
  type ListingId,
  type ListListingsParams,
  NotFound,
  type RankCursor,
  type UpdateListing,
  ValidationFailed,
  type ValidationIssue
} from "@timebank/domain"
import { Array as Arr, Clock, Effect, Option, Schema } from "effect"
import { Outbox } from "../platform/Outbox.js"
import { CommunityMember } from "../platform/Policy.js"
import { TenantSql } from "../platform/TenantSql.js"
import { type Ranked, rankedBy, textTerms } from "../tenancy/config/Ranking.js"
import { RankingHealth } from "../tenancy/config/RankingHealth.js"
import { TenantConfig } from "../tenancy/config/TenantConfig.js"
import { AttributeRepo } from "./AttributeRepo.js"
import { checkAttributeValues } from "./AttributeValues.js"
import { CategoryRepo } from "./CategoryRepo.js"
import { ListingPage, type ListingsPageJson } from "./ListingPage.js"
import { type ListingPatch, ListingRepo, type ListingRow } from "./ListingRepo.js"
import { canSee, ListingEditor, requireListingAuthor, requireListingEditor } from "./ListingsPolicy.js"
import { ListingViews } from "./ListingViews.js"

/** Spec "Limits": directory `per_page` default 20 (max 50, in the contract). */
export const DEFAULT_LISTINGS_PER_PAGE = 20

export const listingNotFound = () => NotFound.of("Listing")

/** A ranked page's wire form: built from views, then encoded by the contract's schema. */
const encodeRankedPage = Schema.encode(CursorPage(Listing))

/** The domain event of a deleted listing (member and admin deletes alike). */
export const listingDeletedEvent = (row: ListingRow, deletedBy: number) =>
  new DomainEvents.ListingDeleted({
    listing_id: row.id,
    user_id: row.user_id,
    type: row.type,
    status: row.status,
    deleted_by: deletedBy
  })

/**
 * Checks what a listing refers to: the category (a `listing` category of the tenant) and the attribute values
 * (against the tenant's definitions). `attributes` undefined leaves them unchecked (an edit that does not touch
 * them). All problems are reported together, one per field.
 */
export class ListingReferences extends Effect.Service<ListingReferences>()("ListingReferences", {
  dependencies: [CategoryRepo.Default, AttributeRepo.Default],
  effect: Effect.gen(function*() {
    const categories = yield* CategoryRepo
    const attributes = yield* AttributeRepo
    return {
      check: Effect.fn("Listings.checkReferences")(function*(
        categoryId: number | null | undefined,
        values: AttributeValuesInput | undefined
      ) {
        const issues: Array<ValidationIssue> = []
        if (categoryId !== undefined && categoryId !== null) {
          const category = yield* categories.findById(categoryId)
          if (Option.isNone(category) || category.value.type !== "listing") {
            issues.push({ field: "category_id", message: "is not a listing category of this community" })
          }
        }
        let checked: AttributeValues | undefined
        if (values !== undefined) {
          const outcome = checkAttributeValues(yield* attributes.list, values)
          issues.push(...outcome.issues)
          checked = outcome.values
        }
        if (Arr.isNonEmptyArray(issues)) return yield* new ValidationFailed({ issues })
        return checked
      })
    } as const
  })
}) {}

/** Offers and requests of members (decisions D6); the contract gates their routes on the `listings` feature. */
export class ListingsService extends Effect.Service<ListingsService>()("ListingsService", {
  dependencies: [
    ListingRepo.Default,
    ListingViews.Default,
    ListingReferences.Default,
    ListingPage.Default,
    Outbox.Default,
    TenantSql.Default
  ],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const repo = yield* ListingRepo
    const views = yield* ListingViews
    const newestPage = yield* ListingPage
    const references = yield* ListingReferences
    const outbox = yield* Outbox

    /** The listing if the caller (anonymous or not) may see it; otherwise it does not exist for them. */
    const visible = (id: number) =>
      Effect.gen(function*() {
        const viewer = yield* Effect.serviceOption(CurrentUser)
        const row = yield* repo.findById(id)
        if (Option.isNone(row) || !canSee(viewer, row.value)) return yield* listingNotFound()
        return row.value
      })

    /**
     * The order of a page: a rank cursor continues the order it was made in; an id cursor continues newest first;
     * the first page takes the community's `listings` algorithm (decisions D17).
     */
    const orderOf = (tenantId: number, params: ListListingsParams) =>
      Effect.gen(function*(): Effect.fn.Return<Ranked | undefined, never, TenantConfig> {
        const cursor = params.cursor
        if (typeof cursor === "object") {
          const { at, recency, relevance } = cursor
          return { anchor: at, recency, relevance, terms: textTerms(params.search) }
        }
        if (cursor !== undefined) return undefined
        const algorithms = yield* Effect.flatMap(TenantConfig, (config) => config.get(tenantId, "algorithms"))
        return rankedBy(algorithms.listings, params.search, yield* Clock.currentTimeMillis)
      })

    const rankedPage = (ranked: Ranked, params: ListListingsParams, perPage: number) =>
      Effect.map(
        repo.listRanked({
          ranked,
          after: typeof params.cursor === "object" ? params.cursor : undefined,
          limit: perPage + 1,
          type: params.type,
          categoryId: params.category_id,
          userId: params.user_id,
          search: params.search
        }),
        (rows) =>
          cursorPage(rows, perPage, (last) =>
            encodeCursor(
              {
                at: ranked.anchor,
                recency: ranked.recency,
                relevance: ranked.relevance,
                score: last.rank_score,
                id: last.id
              } satisfies RankCursor
            ))
      )

    /**
     * A page in its wire form. Newest first (most pages): one prepared query with owners and categories, written
     * as JSON once (ListingPage). Ranked: the page, its views, then the contract's encoding.
     */
    const list = Effect.fn("Listings.list")(function*(params: ListListingsParams) {
      const tenant = yield* CurrentTenant
      const health = yield* RankingHealth
      const perPage = params.per_page ?? DEFAULT_LISTINGS_PER_PAGE
      const ranked = yield* orderOf(tenant.id, params)
      if (ranked !== undefined) {
        const page = yield* health.measure(tenant.id, "listings", rankedPage(ranked, params, perPage))
        const json: ListingsPageJson = yield* Effect.orDie(
          encodeRankedPage({ data: yield* views.many(page.data), meta: page.meta })
        )
        return json
      }
      return yield* health.measure(
        tenant.id,
        "listings",
        newestPage.newest({
          before: typeof params.cursor === "number" ? params.cursor : undefined,
          perPage,
          type: params.type,
          categoryId: params.category_id,
          userId: params.user_id,
          search: params.search
        })
      )
    })

    const get = Effect.fn("Listings.get")(function*(id: ListingId) {
      return yield* views.one(yield* visible(id))
    })

    const create = Effect.fn("Listings.create")(
      function*(input: CreateListing) {
        const author = yield* CommunityMember
        const tenant = yield* CurrentTenant
        const values = yield* references.check(input.category_id, input.attributes ?? {})
        const row = yield* db.transaction(Effect.gen(function*() {
          const row = yield* repo.insert({
            userId: author.userId,
            type: input.type,
            title: input.title,
            description: input.description,
            categoryId: input.category_id ?? null,
            hoursEstimate: input.hours_estimate ?? null,
            location: input.location ?? null,
            attributes: values ?? {},
            status: tenant.settings.listing_moderation ? "pending" : "active"
          })
          yield* outbox.append(
            new DomainEvents.ListingCreated({
              listing_id: row.id,
              user_id: author.userId,
              type: row.type,
              title: row.title,
              status: row.status,
              category_id: row.category_id
            })
          )
          return row
        }))
        return yield* views.one(row)
      },
      requireListingAuthor
    )

    const applyUpdate = (row: ListingRow, patch: UpdateListing) =>
      Effect.gen(function*() {
        const editor = yield* ListingEditor
        const values = yield* references.check(patch.category_id, patch.attributes)
        const changes: ListingPatch = {
          type: patch.type,
          title: patch.title,
          description: patch.description,
          category_id: patch.category_id,
          hours_estimate: patch.hours_estimate,
          location: patch.location,
          attributes: values
        }
        const fields = Object.keys(changes).filter((key) => changes[key as keyof ListingPatch] !== undefined)
        if (fields.length === 0) return yield* views.one(row)
        const updated = yield* db.transaction(Effect.gen(function*() {
          const updated = yield* Effect.flatMap(
            repo.update(row.id, changes),
            Option.match({
              onNone: () => Effect.fail(listingNotFound()),
              onSome: Effect.succeed
            })
          )
          yield* outbox.append(
            new DomainEvents.ListingUpdated({
              listing_id: updated.id,
              user_id: updated.user_id,
              fields,
              status: updated.status,
              updated_by: editor.userId
            })
          )
          return updated
        }))
        return yield* views.one(updated)
      })

    const update = Effect.fn("Listings.update")(function*(id: ListingId, patch: UpdateListing) {
      const row = yield* visible(id)
      return yield* requireListingEditor(row)(applyUpdate(row, patch))
    })

    const softDelete = (row: ListingRow) =>
      Effect.gen(function*() {
        const editor = yield* ListingEditor
        yield* db.transaction(Effect.gen(function*() {
          yield* Effect.flatMap(
            repo.softDelete(row.id),
            Option.match({
              onNone: () => Effect.fail(listingNotFound()),
              onSome: Effect.succeed
            })
          )
          yield* outbox.append(listingDeletedEvent(row, editor.userId))
        }))
        return { id: row.id, deleted: true as const } satisfies ListingDeleted
      })

    const remove = Effect.fn("Listings.delete")(function*(id: ListingId) {
      const row = yield* visible(id)
      return yield* requireListingEditor(row)(softDelete(row))
    })

    /** Whether a listing of this community exists (any status, not deleted): other features may refer to it. */
    const exists = (id: number) => Effect.map(repo.findById(id), Option.isSome)

    return { list, get, create, update, remove, exists } as const
  })
}) {}
