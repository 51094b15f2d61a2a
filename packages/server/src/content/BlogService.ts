import {
  type AdminBlogListParams,
  AlreadyExists,
  type BlogPostDeleted,
  type BlogPostId,
  type CreateBlogPost,
  cursorPage,
  encodeCursor,
  NotFound,
  offsetMeta,
  PUBLIC_BLOG_PER_PAGE,
  type PublicBlogParams,
  type UpdateBlogPost
} from "@timebank/domain"
import { Effect, Option } from "effect"
import { offsetPage } from "../platform/Paging.js"
import { requireTenantAdmin, TenantAdmin } from "../platform/Policy.js"
import { slugify, uniqueSlug } from "../platform/Slug.js"
import { BlogPostRepo, type BlogPostRow } from "./BlogPostRepo.js"
import { BlogViews } from "./BlogViews.js"

export const DEFAULT_ADMIN_BLOG_PER_PAGE = 20

/** Spec "Limits": slug collision retries, 3 attempts. */
export const BLOG_SLUG_ATTEMPTS = 3

/** The slug a post without a usable title gets (before `-2`, `-3`, …). */
const FALLBACK_SLUG = "post"

const postNotFound = () => NotFound.of("Blog post")

const slugTaken = () => new AlreadyExists({ message: "Another post of this community has this slug", field: "slug" })

const found = <A>(row: Option.Option<A>) =>
  Option.match(row, { onNone: () => Effect.fail(postNotFound()), onSome: Effect.succeed })

/** Blank excerpts are none. */
const excerptOf = (excerpt: string | null | undefined) =>
  excerpt === undefined ? undefined : excerpt === null || excerpt === "" ? null : excerpt

/**
 * The community's blog (decisions D17 "Help"): admins write drafts, publish and withdraw them; anyone reads the
 * published ones by slug. A slug is made from the title unless given, and then stays when the title changes.
 */
export class BlogService extends Effect.Service<BlogService>()("BlogService", {
  dependencies: [BlogPostRepo.Default, BlogViews.Default],
  effect: Effect.gen(function*() {
    const repo = yield* BlogPostRepo
    const views = yield* BlogViews

    /** The public blog: published posts, latest published first, a cursor page. */
    const publicList = Effect.fn("Blog.publicList")(function*(params: PublicBlogParams) {
      const perPage = params.per_page ?? PUBLIC_BLOG_PER_PAGE
      const rows = yield* repo.published(params.cursor, perPage + 1)
      const page = cursorPage(rows, perPage, (last) => encodeCursor([last.published_at?.getTime() ?? 0, last.id]))
      return { data: yield* views.many(page.data), meta: page.meta }
    })

    /** A published post by slug; a draft is as unknown as a slug no post has. */
    const publicGet = Effect.fn("Blog.publicGet")(function*(slug: string) {
      return yield* views.one(yield* found(yield* repo.findPublishedBySlug(slug)))
    })

    const list = Effect.fn("Blog.list")(function*(params: AdminBlogListParams) {
      yield* TenantAdmin
      const { page, perPage } = offsetPage(params, DEFAULT_ADMIN_BLOG_PER_PAGE)
      const result = yield* repo.list({ page, perPage, status: params.status, search: params.search })
      return { data: yield* views.many(result.rows), meta: offsetMeta(page, perPage, result.total) }
    }, requireTenantAdmin)

    const get = Effect.fn("Blog.get")(function*(id: BlogPostId) {
      yield* TenantAdmin
      return yield* views.one(yield* found(yield* repo.findById(id)))
    }, requireTenantAdmin)

    const create = Effect.fn("Blog.create")(function*(input: CreateBlogPost) {
      const admin = yield* TenantAdmin
      const fields = {
        title: input.title,
        excerpt: excerptOf(input.excerpt) ?? null,
        content: input.content,
        status: input.status ?? "draft"
      }
      const insert = (slug: string) => repo.insert(admin.userId, { ...fields, slug })
      let row: Option.Option<BlogPostRow> = Option.none()
      if (input.slug !== undefined) {
        row = yield* insert(input.slug)
      } else {
        // A free slug from the title; one taken between the look-up and the insert (another admin, same moment)
        // is looked up again, BLOG_SLUG_ATTEMPTS times in all.
        const base = slugify(input.title, FALLBACK_SLUG)
        for (let attempt = 1; attempt <= BLOG_SLUG_ATTEMPTS && Option.isNone(row); attempt++) {
          row = yield* insert(uniqueSlug(base, yield* repo.slugsLike(base)))
        }
      }
      if (Option.isNone(row)) return yield* slugTaken()
      return yield* views.one(row.value)
    }, requireTenantAdmin)

    const update = Effect.fn("Blog.update")(function*(id: BlogPostId, patch: UpdateBlogPost) {
      yield* TenantAdmin
      const current = yield* found(yield* repo.findById(id))
      const changes = {
        title: patch.title,
        slug: patch.slug === current.slug ? undefined : patch.slug,
        excerpt: excerptOf(patch.excerpt),
        content: patch.content,
        status: patch.status
      }
      if (Object.values(changes).every((v) => v === undefined)) return yield* views.one(current)
      if (changes.slug !== undefined && (yield* repo.slugTaken(changes.slug, id))) return yield* slugTaken()
      const outcome = yield* repo.update(id, changes)
      switch (outcome._tag) {
        case "Written":
          return yield* views.one(outcome.row)
        case "NotFound":
          return yield* postNotFound()
        case "SlugTaken":
          return yield* slugTaken()
      }
    }, requireTenantAdmin)

    /** Draft → published (published now), published → draft. */
    const toggleStatus = Effect.fn("Blog.toggleStatus")(function*(id: BlogPostId) {
      yield* TenantAdmin
      return yield* views.one(yield* found(yield* repo.toggleStatus(id)))
    }, requireTenantAdmin)

    const remove = Effect.fn("Blog.delete")(function*(id: BlogPostId) {
      yield* TenantAdmin
      if (!(yield* repo.delete(id))) return yield* postNotFound()
      return { id, deleted: true } satisfies BlogPostDeleted
    }, requireTenantAdmin)

    return { publicList, publicGet, list, get, create, update, toggleStatus, remove } as const
  })
}) {}
