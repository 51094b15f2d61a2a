import { BlogPost, type CurrentTenant } from "@timebank/domain"
import { DateTime, Effect } from "effect"
import { UserSummaries } from "../identity/UserSummaries.js"
import type { BlogPostRow } from "./BlogPostRepo.js"

const utc = (date: Date) => DateTime.unsafeFromDate(date)

/** The one read shape of a blog post, for the admin and public lists and details: one author query per page. */
export class BlogViews extends Effect.Service<BlogViews>()("BlogViews", {
  dependencies: [UserSummaries.Default],
  effect: Effect.gen(function*() {
    const users = yield* UserSummaries

    const many = (rows: ReadonlyArray<BlogPostRow>): Effect.Effect<ReadonlyArray<BlogPost>, never, CurrentTenant> =>
      Effect.map(users.byIds(rows.map((r) => r.author_id)), (authors) =>
        rows.map((row) => {
          const author = authors.get(row.author_id)
          return BlogPost.make({
            id: row.id,
            title: row.title,
            slug: row.slug,
            excerpt: row.excerpt,
            content: row.content,
            status: row.status,
            published_at: row.published_at === null ? null : utc(row.published_at),
            author_id: row.author_id,
            author: author === undefined
              ? null
              : { id: author.id, name: `${author.first_name} ${author.last_name}`.trim() },
            created_at: utc(row.created_at),
            updated_at: utc(row.updated_at)
          })
        }))

    const one = (row: BlogPostRow): Effect.Effect<BlogPost, never, CurrentTenant> =>
      Effect.map(many([row]), (posts) => posts[0]!)

    return { many, one } as const
  })
}) {}
