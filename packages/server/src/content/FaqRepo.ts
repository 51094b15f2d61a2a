import { Faq, type FaqCursor, FaqId } from "@timebank/domain"
import { DateTime, Effect, Schema } from "effect"
import { definedOnly, likePattern } from "../platform/SqlErrors.js"
import { DbDate, dbId, DbInt, decodeFirst, decodeRows, decodeSingle } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"

/** A row of `help_faqs`. */
export const FaqRow = Schema.Struct({
  id: dbId(FaqId),
  question: Schema.String,
  answer: Schema.String,
  category: Schema.String,
  position: DbInt,
  is_published: Schema.Boolean,
  created_at: DbDate,
  updated_at: DbDate
})
export type FaqRow = typeof FaqRow.Type

/** The one read shape of an FAQ, for the admin list, the writes and the public help page alike. */
export const toFaq = (row: FaqRow) =>
  Faq.make({
    ...row,
    created_at: DateTime.unsafeFromDate(row.created_at),
    updated_at: DateTime.unsafeFromDate(row.updated_at)
  })

const firstFaq = decodeFirst(FaqRow)
const allFaqs = decodeRows(FaqRow)
const count = decodeSingle(Schema.Struct({ n: DbInt }))

export interface FaqListQuery {
  readonly page: number
  readonly perPage: number
  readonly category: string | undefined
  readonly isPublished: boolean | undefined
  readonly search: string | undefined
}

export interface FaqInsert {
  readonly question: string
  readonly answer: string
  readonly category: string
  /** None: after every other question of the community. */
  readonly position: number | undefined
  readonly isPublished: boolean
}

export interface FaqPatch {
  readonly question?: string | undefined
  readonly answer?: string | undefined
  readonly category?: string | undefined
  readonly position?: number | undefined
  readonly is_published?: boolean | undefined
}

/** The help page's questions in the current tenant. */
export class FaqRepo extends Effect.Service<FaqRepo>()("FaqRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db

    return {
      /** The admin list: by position then id (`help_faqs_order`), filtered, one page and the total. */
      list: (q: FaqListQuery) =>
        db.query((tenantId) => {
          const conditions = [sql`tenant_id = ${tenantId}`]
          if (q.category !== undefined) conditions.push(sql`category = ${q.category}`)
          if (q.isPublished !== undefined) conditions.push(sql`is_published = ${q.isPublished}`)
          if (q.search !== undefined && q.search !== "") {
            const pattern = likePattern(q.search)
            conditions.push(sql`(question ILIKE ${pattern} OR answer ILIKE ${pattern})`)
          }
          const where = sql.and(conditions)
          return Effect.all({
            rows: sql`SELECT * FROM help_faqs WHERE ${where}
              ORDER BY position, id LIMIT ${q.perPage} OFFSET ${(q.page - 1) * q.perPage}`.pipe(allFaqs),
            total: sql`SELECT count(*)::int AS n FROM help_faqs WHERE ${where}`.pipe(count, Effect.map((r) => r.n))
          }, { concurrency: 2 })
        }),

      /**
       * Published questions by category, position and id (`help_faqs_public`), after the cursor's question: up to
       * `limit` rows.
       */
      published: (category: string | undefined, after: FaqCursor | undefined, limit: number) =>
        db.query((tenantId) => {
          const conditions = [sql`tenant_id = ${tenantId}`, sql`is_published`]
          if (category !== undefined) conditions.push(sql`category = ${category}`)
          if (after !== undefined) {
            conditions.push(sql`(category, position, id) > (${after[0]}, ${after[1]}, ${after[2]})`)
          }
          return sql`SELECT * FROM help_faqs WHERE ${sql.and(conditions)}
            ORDER BY category, position, id LIMIT ${limit}`.pipe(allFaqs)
        }),

      findById: (id: number) =>
        db.query((tenantId) =>
          sql`SELECT * FROM help_faqs WHERE tenant_id = ${tenantId} AND id = ${id}`.pipe(firstFaq)
        ),

      /** Without a position, one more than the highest of the community (at most the largest position allowed). */
      insert: (faq: FaqInsert, maxPosition: number) =>
        db.query((tenantId) => {
          const position = faq.position === undefined
            ? sql`(SELECT LEAST(COALESCE(max(position), 0) + 1, ${maxPosition})
                FROM help_faqs WHERE tenant_id = ${tenantId})`
            : sql`${faq.position}`
          return sql`
            INSERT INTO help_faqs (tenant_id, question, answer, category, position, is_published)
            VALUES (${tenantId}, ${faq.question}, ${faq.answer}, ${faq.category}, ${position}, ${faq.isPublished})
            RETURNING *`.pipe(decodeSingle(FaqRow))
        }),

      /** The changed row; None when the tenant has no such question. */
      update: (id: number, patch: FaqPatch) =>
        db.query((tenantId) =>
          sql`UPDATE help_faqs SET ${sql.update({ ...definedOnly(patch), updated_at: new Date() })}
            WHERE tenant_id = ${tenantId} AND id = ${id}
            RETURNING *`.pipe(firstFaq)
        ),

      /** Whether a question was deleted. */
      delete: (id: number) =>
        db.query((tenantId) =>
          sql`DELETE FROM help_faqs WHERE tenant_id = ${tenantId} AND id = ${id} RETURNING id`.pipe(
            Effect.map((rows) => rows.length > 0)
          )
        )
    } as const
  })
}) {}
