import type { SqlError } from "@effect/sql/SqlError"
import { type BlogCursor, BlogPostId, BlogPostStatus, UserId } from "@timebank/domain"
import { Effect, Option, Schema } from "effect"
import { definedOnly, isUniqueViolation, likePattern } from "../platform/SqlErrors.js"
import { DbDate, dbId, DbInt, decodeFirst, decodeRows, decodeSingle } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"

/** A row of `blog_posts`. */
export const BlogPostRow = Schema.Struct({
  id: dbId(BlogPostId),
  author_id: dbId(UserId),
  title: Schema.String,
  slug: Schema.String,
  excerpt: Schema.NullOr(Schema.String),
  content: Schema.String,
  status: BlogPostStatus,
  published_at: Schema.NullOr(DbDate),
  created_at: DbDate,
  updated_at: DbDate
})
export type BlogPostRow = typeof BlogPostRow.Type

const firstPost = decodeFirst(BlogPostRow)
const allPosts = decodeRows(BlogPostRow)
const count = decodeSingle(Schema.Struct({ n: DbInt }))
const slugs = decodeRows(Schema.Struct({ slug: Schema.String }))

export interface BlogListQuery {
  readonly page: number
  readonly perPage: number
  readonly status: BlogPostStatus | undefined
  readonly search: string | undefined
}

export interface BlogPostFields {
  readonly title: string
  readonly slug: string
  readonly excerpt: string | null
  readonly content: string
  readonly status: BlogPostStatus
}

export interface BlogPostPatch {
  readonly title?: string | undefined
  readonly slug?: string | undefined
  readonly excerpt?: string | null | undefined
  readonly content?: string | undefined
  readonly status?: BlogPostStatus | undefined
}

/** What a write found: the row, no such post, or a slug another post of the community has. */
export type BlogPostWrite =
  | { readonly _tag: "Written"; readonly row: BlogPostRow }
  | { readonly _tag: "NotFound" }
  | { readonly _tag: "SlugTaken" }

const written = (row: Option.Option<BlogPostRow>): BlogPostWrite =>
  Option.match(row, { onNone: () => ({ _tag: "NotFound" }), onSome: (r) => ({ _tag: "Written", row: r }) })

/**
 * The publication time a status gives: a post published now gets the time of the statement (to the millisecond, as
 * the public blog's cursor carries it), a draft none, a post staying published keeps its time.
 */
const PUBLISHED_AT_NOW = "date_trunc('milliseconds', now())"

/** Blog posts of the current tenant. */
export class BlogPostRepo extends Effect.Service<BlogPostRepo>()("BlogPostRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db
    const now = sql.literal(PUBLISHED_AT_NOW)

    /** A unique index refused the slug: another post has it (another admin, same moment). */
    const refusedSlug = <R>(effect: Effect.Effect<BlogPostWrite, SqlError, R>) =>
      Effect.catchIf(effect, isUniqueViolation, () => Effect.succeed<BlogPostWrite>({ _tag: "SlugTaken" }))

    return {
      /** The admin list: newest first (`blog_posts_admin`), filtered, one page and the total. */
      list: (q: BlogListQuery) =>
        db.query((tenantId) => {
          const conditions = [sql`tenant_id = ${tenantId}`]
          if (q.status !== undefined) conditions.push(sql`status = ${q.status}`)
          if (q.search !== undefined && q.search !== "") {
            const pattern = likePattern(q.search)
            conditions.push(sql`(title ILIKE ${pattern} OR excerpt ILIKE ${pattern} OR content ILIKE ${pattern})`)
          }
          const where = sql.and(conditions)
          return Effect.all({
            rows: sql`SELECT * FROM blog_posts WHERE ${where}
              ORDER BY id DESC LIMIT ${q.perPage} OFFSET ${(q.page - 1) * q.perPage}`.pipe(allPosts),
            total: sql`SELECT count(*)::int AS n FROM blog_posts WHERE ${where}`.pipe(count, Effect.map((r) => r.n))
          }, { concurrency: 2 })
        }),

      /** Published posts, latest published first (`blog_posts_public`), after the cursor's post: up to `limit`. */
      published: (after: BlogCursor | undefined, limit: number) =>
        db.query((tenantId) => {
          const conditions = [sql`tenant_id = ${tenantId}`, sql`status = 'published'`]
          if (after !== undefined) {
            conditions.push(sql`(published_at, id) < (${new Date(after[0])}, ${after[1]})`)
          }
          return sql`SELECT * FROM blog_posts WHERE ${sql.and(conditions)}
            ORDER BY published_at DESC, id DESC LIMIT ${limit}`.pipe(allPosts)
        }),

      findById: (id: number) =>
        db.query((tenantId) =>
          sql`SELECT * FROM blog_posts WHERE tenant_id = ${tenantId} AND id = ${id}`.pipe(firstPost)
        ),

      /** A published post by its slug. */
      findPublishedBySlug: (slug: string) =>
        db.query((tenantId) =>
          sql`SELECT * FROM blog_posts
            WHERE tenant_id = ${tenantId} AND slug = ${slug} AND status = 'published'`.pipe(firstPost)
        ),

      /** Slugs that are `base` or `base-<something>` (the candidates a new slug must avoid). */
      slugsLike: (base: string) =>
        db.query((tenantId) =>
          // Slugs hold only [a-z0-9-], so `base` needs no LIKE escaping.
          sql`SELECT slug FROM blog_posts
            WHERE tenant_id = ${tenantId} AND (slug = ${base} OR slug LIKE ${`${base}-%`})`.pipe(
            slugs,
            Effect.map((rows) => new Set(rows.map((r) => r.slug)))
          )
        ),

      /** A new post by `authorId`; None when another post has the slug (another admin, same moment). */
      insert: (authorId: number, fields: BlogPostFields) =>
        db.query((tenantId) =>
          sql`
            INSERT INTO blog_posts (tenant_id, author_id, title, slug, excerpt, content, status, published_at)
            VALUES (${tenantId}, ${authorId}, ${fields.title}, ${fields.slug}, ${fields.excerpt}, ${fields.content},
              ${fields.status}, ${fields.status === "published" ? now : null})
            ON CONFLICT (tenant_id, slug) DO NOTHING
            RETURNING *`.pipe(firstPost)
        ),

      /** Whether another post of the community has `slug`. */
      slugTaken: (slug: string, except: number) =>
        db.query((tenantId) =>
          sql`SELECT count(*)::int AS n FROM blog_posts
            WHERE tenant_id = ${tenantId} AND slug = ${slug} AND id <> ${except}`.pipe(
            count,
            Effect.map((r) => r.n > 0)
          )
        ),

      /**
       * Changes the fields given. A status change sets `published_at` (now when published, null when back to draft);
       * a post that stays published keeps its time.
       */
      update: (id: number, patch: BlogPostPatch) =>
        db.query((tenantId) => {
          const publishedAt = patch.status === undefined
            ? sql`published_at`
            : patch.status === "published"
            ? sql`CASE WHEN status = 'published' THEN published_at ELSE ${now} END`
            : sql`NULL`
          return sql`
            UPDATE blog_posts SET ${sql.update({ ...definedOnly(patch), updated_at: new Date() })},
              published_at = ${publishedAt}
            WHERE tenant_id = ${tenantId} AND id = ${id}
            RETURNING *`.pipe(firstPost, Effect.map(written), refusedSlug)
        }),

      /** Flips draft ↔ published; None when the tenant has no such post. */
      toggleStatus: (id: number) =>
        db.query((tenantId) =>
          sql`
            UPDATE blog_posts SET
              status = CASE WHEN status = 'published' THEN 'draft' ELSE 'published' END,
              published_at = CASE WHEN status = 'published' THEN NULL ELSE ${now} END,
              updated_at = now()
            WHERE tenant_id = ${tenantId} AND id = ${id}
            RETURNING *`.pipe(firstPost)
        ),

      /** Whether a post was deleted. */
      delete: (id: number) =>
        db.query((tenantId) =>
          sql`DELETE FROM blog_posts WHERE tenant_id = ${tenantId} AND id = ${id} RETURNING id`.pipe(
            Effect.map((rows) => rows.length > 0)
          )
        )
    } as const
  })
}) {}
