import { AttributeValues, ListingId, ListingStatus, ListingType, UserId } from "@timebank/domain"
import { Effect, Schema } from "effect"
import { definedOnly, likePattern } from "../platform/SqlErrors.js"
import { DbDate, dbId, DbInt, DbNumeric, decodeFirst, decodeRows, decodeSingle } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"
import { type Ranked, rankScore } from "../tenancy/config/Ranking.js"

/** A row of `listings` (live ones: the repo never hands out deleted rows). */
export const ListingRow = Schema.Struct({
  id: dbId(ListingId),
  user_id: dbId(UserId),
  type: ListingType,
  title: Schema.String,
  description: Schema.String,
  category_id: Schema.NullOr(DbInt),
  hours_estimate: Schema.NullOr(DbNumeric),
  location: Schema.NullOr(Schema.String),
  attributes: AttributeValues,
  status: ListingStatus,
  created_at: DbDate,
  updated_at: DbDate
})
export type ListingRow = typeof ListingRow.Type

/** A listing with its score in a ranked order. */
export const RankedListingRow = Schema.Struct({ ...ListingRow.fields, rank_score: Schema.Number })
export type RankedListingRow = typeof RankedListingRow.Type

const firstListing = decodeFirst(ListingRow)
const allListings = decodeRows(ListingRow)
const count = decodeSingle(Schema.Struct({ n: DbInt }))
const StatusCount = Schema.Struct({ status: ListingStatus, n: DbInt, oldest: Schema.NullOr(DbDate) })
const statusCounts = decodeRows(StatusCount)
const unassigned = decodeRows(Schema.Struct({ id: DbInt, deleted_at: Schema.NullOr(DbDate) }))

export interface ListingFilters {
  readonly type?: ListingType | undefined
  readonly categoryId?: number | undefined
  readonly userId?: number | undefined
  readonly search?: string | undefined
}

export interface RankedListQuery extends ListingFilters {
  readonly ranked: Ranked
  /** Only listings after this one in the order. */
  readonly after?: { readonly score: number; readonly id: number } | undefined
  readonly limit: number
}

export interface AdminListQuery extends ListingFilters {
  readonly status?: ListingStatus | undefined
  readonly page: number
  readonly perPage: number
}

export interface ListingInsert {
  readonly userId: number
  readonly type: ListingType
  readonly title: string
  readonly description: string
  readonly categoryId: number | null
  readonly hoursEstimate: number | null
  readonly location: string | null
  readonly attributes: AttributeValues
  readonly status: ListingStatus
}

/** Columns an edit may set; `undefined` leaves a column as it is. */
export interface ListingPatch {
  readonly type?: ListingType | undefined
  readonly title?: string | undefined
  readonly description?: string | undefined
  readonly category_id?: number | null | undefined
  readonly hours_estimate?: number | null | undefined
  readonly location?: string | null | undefined
  readonly attributes?: AttributeValues | undefined
}

/**
 * Listings of the current tenant. Deleted listings (`deleted_at` set) are gone for every method here: the rows stay
 * only so that ledger transactions that name them keep their reference.
 */
export class ListingRepo extends Effect.Service<ListingRepo>()("ListingRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db

    const filterConditions = (tenantId: number, f: ListingFilters) => {
      const conditions = [sql`tenant_id = ${tenantId}`, sql`deleted_at IS NULL`]
      if (f.type !== undefined) conditions.push(sql`type = ${f.type}`)
      if (f.categoryId !== undefined) conditions.push(sql`category_id = ${f.categoryId}`)
      if (f.userId !== undefined) conditions.push(sql`user_id = ${f.userId}`)
      if (f.search !== undefined && f.search !== "") {
        const pattern = likePattern(f.search)
        conditions.push(sql`(title ILIKE ${pattern} OR description ILIKE ${pattern})`)
      }
      return conditions
    }

    const offsetPage = (where: ReturnType<typeof sql.and>, order: "newest" | "oldest", page: number, perPage: number) =>
      Effect.all({
        rows: order === "newest"
          ? sql`SELECT * FROM listings WHERE ${where}
              ORDER BY id DESC LIMIT ${perPage} OFFSET ${(page - 1) * perPage}`.pipe(allListings)
          : sql`SELECT * FROM listings WHERE ${where}
              ORDER BY id LIMIT ${perPage} OFFSET ${(page - 1) * perPage}`.pipe(allListings),
        total: sql`SELECT count(*)::int AS n FROM listings WHERE ${where}`.pipe(count, Effect.map((row) => row.n))
      }, { concurrency: 2 })

    return {
      /** Active listings by score, highest first (the filters' rows are scored, then cut at the cursor). */
      listRanked: (q: RankedListQuery) =>
        db.query((tenantId) => {
          const conditions = [...filterConditions(tenantId, q), sql`status = 'active'`]
          const vector = sql`(setweight(to_tsvector('simple', title), 'A')
            || setweight(to_tsvector('simple', description), 'B'))`
          const score = rankScore(sql, q.ranked, vector, sql`created_at`)
          const after = q.after === undefined
            ? sql``
            : sql`WHERE (rank_score, id) < (${q.after.score}::float8, ${q.after.id})`
          return sql`
            SELECT * FROM (SELECT *, ${score} AS rank_score FROM listings WHERE ${sql.and(conditions)}) ranked
            ${after} ORDER BY rank_score DESC, id DESC LIMIT ${q.limit}`.pipe(decodeRows(RankedListingRow))
        }),

      /** Every status, newest first, with the total for offset paging. */
      listAll: (q: AdminListQuery) =>
        db.query((tenantId) => {
          const conditions = filterConditions(tenantId, q)
          if (q.status !== undefined) conditions.push(sql`status = ${q.status}`)
          return offsetPage(sql.and(conditions), "newest", q.page, q.perPage)
        }),

      /** Pending listings, oldest first. */
      pending: (page: number, perPage: number) =>
        db.query((tenantId) =>
          offsetPage(
            sql.and([sql`tenant_id = ${tenantId}`, sql`deleted_at IS NULL`, sql`status = 'pending'`]),
            "oldest",
            page,
            perPage
          )
        ),

      /** Counts per status and the creation time of the oldest pending listing. */
      stats: db.query((tenantId) =>
        sql`
          SELECT status, count(*)::int AS n, min(created_at) AS oldest FROM listings
          WHERE tenant_id = ${tenantId} AND deleted_at IS NULL
          GROUP BY status`.pipe(statusCounts)
      ),

      findById: (id: number) =>
        db.query((tenantId) =>
          sql`SELECT * FROM listings WHERE tenant_id = ${tenantId} AND id = ${id} AND deleted_at IS NULL`
            .pipe(firstListing)
        ),

      insert: (l: ListingInsert) =>
        db.query((tenantId) =>
          sql`
            INSERT INTO listings (tenant_id, user_id, type, title, description, category_id, hours_estimate, location,
                                  attributes, status)
            VALUES (${tenantId}, ${l.userId}, ${l.type}, ${l.title}, ${l.description}, ${l.categoryId},
                    ${l.hoursEstimate}, ${l.location}, ${JSON.stringify(l.attributes)}::jsonb, ${l.status})
            RETURNING *`.pipe(decodeSingle(ListingRow))
        ),

      update: (id: number, patch: ListingPatch) =>
        db.query((tenantId) => {
          const { attributes, ...columns } = patch
          const set = definedOnly(columns)
          const attributesSet = attributes === undefined
            ? sql``
            : sql`, attributes = ${JSON.stringify(attributes)}::jsonb`
          return sql`
            UPDATE listings SET ${sql.update({ ...set, updated_at: new Date() })} ${attributesSet}
            WHERE tenant_id = ${tenantId} AND id = ${id} AND deleted_at IS NULL
            RETURNING *`.pipe(firstListing)
        }),

      softDelete: (id: number) =>
        db.query((tenantId) =>
          sql`
            UPDATE listings SET deleted_at = now(), updated_at = now()
            WHERE tenant_id = ${tenantId} AND id = ${id} AND deleted_at IS NULL
            RETURNING *`.pipe(firstListing)
        ),

      /** Pending → active in one statement, so two moderators approving at once make one change. */
      approve: (id: number) =>
        db.query((tenantId) =>
          sql`
            UPDATE listings SET status = 'active', updated_at = now()
            WHERE tenant_id = ${tenantId} AND id = ${id} AND deleted_at IS NULL AND status = 'pending'
            RETURNING *`.pipe(firstListing)
        ),

      /** Listings (deleted ones included) lose the category; returns the ids of the live ones that had it. */
      unassignCategory: (categoryId: number) =>
        db.query((tenantId) =>
          sql`
            UPDATE listings SET category_id = NULL, updated_at = now()
            WHERE tenant_id = ${tenantId} AND category_id = ${categoryId}
            RETURNING id, deleted_at`.pipe(
            unassigned,
            Effect.map((rows) => rows.filter((r) => r.deleted_at === null).map((r) => r.id))
          )
        ),

      /** Removes attribute `key`'s value from every listing that has one (all of them, or those not in `keep`). */
      dropAttributeValues: (key: string, keep?: ReadonlyArray<string>) =>
        db.query((tenantId) =>
          sql`
            UPDATE listings SET attributes = attributes - ${key}, updated_at = now()
            WHERE tenant_id = ${tenantId} AND attributes ? ${key}
              ${keep === undefined ? sql`` : sql`AND NOT (attributes -> ${key} <@ ${JSON.stringify(keep)}::jsonb)`}
            RETURNING id`.pipe(Effect.map((rows) => rows.length))
        )
    } as const
  })
}) {}
