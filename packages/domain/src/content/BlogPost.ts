import { Schema } from "effect"
import { CursorParam, OffsetPageParams, PerPageParam } from "../http/Cursor.js"
import { PATH_PARAM_NOT_FOUND, PathId, RecordId } from "../http/Ids.js"
import { TrimmedText } from "../http/Text.js"
import { UserId } from "../identity/User.js"

export const BlogPostId = RecordId.pipe(Schema.brand("BlogPostId"))
export type BlogPostId = typeof BlogPostId.Type

export const BLOG_TITLE_MAX = 200
export const BLOG_SLUG_MAX = 100
export const BLOG_EXCERPT_MAX = 500
export const BLOG_CONTENT_MAX = 100_000

/** A post is a `draft` (admins only) until published; `toggle-status` flips it (decisions D17 "Help"). */
export const BlogPostStatus = Schema.Literal("draft", "published")
export type BlogPostStatus = typeof BlogPostStatus.Type

const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/

/** Lowercase ASCII letters and digits in words joined by single hyphens: `my-first-post`. */
export const BlogSlug = Schema.String.pipe(Schema.maxLength(BLOG_SLUG_MAX), Schema.pattern(SLUG_PATTERN)).annotations({
  description: "Lowercase letters and digits in words joined by single hyphens (`my-first-post`); unique in the " +
    `community; at most ${BLOG_SLUG_MAX} characters`
})

export const BlogTitle = TrimmedText(1, BLOG_TITLE_MAX)
export const BlogExcerpt = TrimmedText(0, BLOG_EXCERPT_MAX)
export const BlogContent = TrimmedText(1, BLOG_CONTENT_MAX)

/** The author as a post shows them. */
export const BlogAuthor = Schema.Struct({ id: UserId, name: Schema.String })
export type BlogAuthor = typeof BlogAuthor.Type

/** A blog post of the community (decisions D17 "Help"). */
export class BlogPost extends Schema.Class<BlogPost>("BlogPost")({
  id: BlogPostId,
  title: Schema.String,
  slug: Schema.String.annotations({ description: "The post's address in the public blog: `/api/v2/blog/{slug}`" }),
  excerpt: Schema.NullOr(Schema.String),
  content: Schema.String,
  status: BlogPostStatus,
  published_at: Schema.NullOr(Schema.DateTimeUtc).annotations({
    description: "When the post was (last) published; null while it is a draft"
  }),
  author_id: UserId,
  author: Schema.NullOr(BlogAuthor).annotations({
    description: "Null when the author is not a member of this community (a platform super-admin wrote it)"
  }),
  created_at: Schema.DateTimeUtc,
  updated_at: Schema.DateTimeUtc
}) {}

const exact = <S extends Schema.Schema.All>(schema: S) => Schema.optionalWith(schema, { exact: true })

const excerptField = exact(Schema.NullOr(BlogExcerpt)).annotations({
  description: `A short summary, up to ${BLOG_EXCERPT_MAX} characters; blank is the same as none`
})

/** `POST /api/v2/admin/blog`. */
export const CreateBlogPost = Schema.Struct({
  title: BlogTitle,
  slug: exact(BlogSlug).annotations({
    description: "Default: made from the title, with `-2`, `-3`, … when taken; a given slug that is taken is 409"
  }),
  excerpt: excerptField,
  content: BlogContent,
  status: exact(BlogPostStatus).annotations({ description: "Default `draft`; `published` publishes it now" })
})
export type CreateBlogPost = typeof CreateBlogPost.Type

/** `PUT /api/v2/admin/blog/{id}`: the fields given change, the others stay (the slug too when the title changes). */
export const UpdateBlogPost = Schema.Struct({
  title: exact(BlogTitle),
  slug: exact(BlogSlug).annotations({ description: "A new address; one another post has is 409" }),
  excerpt: excerptField,
  content: exact(BlogContent),
  status: exact(BlogPostStatus).annotations({
    description: "`published` publishes a draft now, `draft` withdraws a published post"
  })
})
export type UpdateBlogPost = typeof UpdateBlogPost.Type

export const BlogPostIdPath = Schema.Struct({ id: PathId(BlogPostId) })

/** A slug in a path: one that cannot be a slug names no post (404, decisions D1). */
export const BlogSlugPath = Schema.Struct({
  slug: BlogSlug.annotations({ message: () => ({ message: PATH_PARAM_NOT_FOUND, override: true }) })
})

export const BlogPostDeleted = Schema.Struct({ id: BlogPostId, deleted: Schema.Literal(true) })
export type BlogPostDeleted = typeof BlogPostDeleted.Type

/** `GET /api/v2/admin/blog`. */
export const AdminBlogListParams = Schema.Struct({
  ...OffsetPageParams.fields,
  status: Schema.optional(BlogPostStatus).annotations({ description: "Only drafts or only published posts" }),
  search: Schema.optional(Schema.Trim.pipe(Schema.maxLength(200))).annotations({
    description: "Part of the title, excerpt or content (case-insensitive; % and _ match themselves)"
  })
})
export type AdminBlogListParams = typeof AdminBlogListParams.Type

/** Cursor of the public blog: the last post's publication time (epoch ms) and id. */
export const BlogCursor = Schema.Tuple(Schema.Int, RecordId)
export type BlogCursor = typeof BlogCursor.Type

export const PUBLIC_BLOG_PER_PAGE = 20
export const PUBLIC_BLOG_PER_PAGE_MAX = 50

/** `GET /api/v2/blog`. */
export const PublicBlogParams = Schema.Struct({
  cursor: Schema.optional(CursorParam(BlogCursor)),
  per_page: Schema.optional(PerPageParam(PUBLIC_BLOG_PER_PAGE_MAX)).annotations({
    description: `Default ${PUBLIC_BLOG_PER_PAGE}`
  })
})
export type PublicBlogParams = typeof PublicBlogParams.Type
