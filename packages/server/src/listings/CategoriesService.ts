import {
  AlreadyExists,
  type Category,
  type CategoryDeleted,
  type CategoryId,
  type CategoryType,
  type CreateCategory,
  DomainEvents,
  NotFound,
  type UpdateCategory
} from "@timebank/domain"
import { Effect, Option } from "effect"
import { Outbox } from "../platform/Outbox.js"
import { requireTenantAdmin, TenantAdmin } from "../platform/Policy.js"
import { slugify, uniqueSlug } from "../platform/Slug.js"
import { TenantSql } from "../platform/TenantSql.js"
import { type CategoryFields, CategoryRepo, type CategoryWrite } from "./CategoryRepo.js"
import { ListingRepo } from "./ListingRepo.js"

/** Spec "Limits": slug collision retries, 3 attempts. */
export const SLUG_ATTEMPTS = 3

const nameTaken = () => new AlreadyExists({ message: "A category of this type with this name exists", field: "name" })

const found = <A>(row: Option.Option<A>) =>
  Option.match(row, { onNone: () => Effect.fail(NotFound.of("Category")), onSome: Effect.succeed })

/** Categories of listings, events, blog posts and volunteering opportunities (decisions D6). */
export class CategoriesService extends Effect.Service<CategoriesService>()("CategoriesService", {
  dependencies: [CategoryRepo.Default, ListingRepo.Default, Outbox.Default, TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const repo = yield* CategoryRepo
    const listings = yield* ListingRepo
    const outbox = yield* Outbox

    /**
     * Writes a category with a free slug made from its name; `write` answers None when a unique index refused the
     * row. A slug can be taken between the look-up and the write (another admin, same moment): then the look-up and
     * the write are tried again, {@link SLUG_ATTEMPTS} times in all.
     */
    const writeWithSlug = <E, R>(
      fields: Omit<CategoryFields, "slug">,
      write: (fields: CategoryFields) => Effect.Effect<Option.Option<Category>, E, R>,
      except?: number
    ) =>
      Effect.gen(function*() {
        const base = slugify(fields.name)
        for (let attempt = 1; attempt <= SLUG_ATTEMPTS; attempt++) {
          if (yield* repo.nameTaken(fields.type, fields.name, except)) return yield* nameTaken()
          const slug = uniqueSlug(base, yield* repo.slugsLike(fields.type, base, except))
          const row = yield* write({ ...fields, slug })
          if (Option.isSome(row)) return row.value
        }
        return yield* nameTaken()
      })

    /** The row written, None when a unique index refused it; a category gone meanwhile is 404. */
    const writtenRow = (outcome: CategoryWrite): Effect.Effect<Option.Option<Category>, NotFound> =>
      outcome._tag === "Written"
        ? Effect.succeed(Option.some(outcome.row))
        : outcome._tag === "Taken"
        ? Effect.succeed(Option.none())
        : Effect.fail(NotFound.of("Category"))

    const list = Effect.fn("Categories.list")(function*(type: CategoryType | undefined) {
      return yield* repo.list(type)
    })

    const adminList = Effect.fn("Categories.adminList")(function*(type: CategoryType | undefined) {
      yield* TenantAdmin
      return yield* repo.list(type)
    }, requireTenantAdmin)

    const create = Effect.fn("Categories.create")(function*(input: CreateCategory) {
      const admin = yield* TenantAdmin
      const fields = { name: input.name, type: input.type ?? "listing", color: input.color?.toLowerCase() ?? null }
      const row = yield* writeWithSlug(fields, (f) =>
        db.transaction(Effect.gen(function*() {
          const row = yield* repo.insert(f)
          if (Option.isSome(row)) {
            yield* outbox.append(
              new DomainEvents.CategoryCreated({
                category_id: row.value.id,
                type: row.value.type,
                name: row.value.name,
                slug: row.value.slug,
                created_by: admin.userId
              })
            )
          }
          return row
        })))
      return row
    }, requireTenantAdmin)

    const update = Effect.fn("Categories.update")(function*(id: CategoryId, patch: UpdateCategory) {
      const admin = yield* TenantAdmin
      const current = yield* found(yield* repo.findById(id))
      const fields = {
        name: patch.name ?? current.name,
        type: patch.type ?? current.type,
        color: patch.color === undefined ? current.color : patch.color?.toLowerCase() ?? null
      }
      const changed = (Object.keys(fields) as Array<keyof typeof fields>).filter((k) => fields[k] !== current[k])
      if (changed.length === 0) return current
      const leavesListings = current.type === "listing" && fields.type !== "listing"
      const write = (f: CategoryFields) =>
        db.transaction(Effect.gen(function*() {
          const row = yield* Effect.flatMap(repo.update(id, f), writtenRow)
          if (Option.isNone(row)) return row
          // A listing's category must be a listing category: the listings that had it lose it.
          const unassigned = leavesListings ? yield* listings.unassignCategory(id) : []
          yield* outbox.append(
            new DomainEvents.CategoryUpdated({
              category_id: id,
              fields: changed,
              type: row.value.type,
              unassigned_listing_ids: unassigned,
              updated_by: admin.userId
            })
          )
          return row
        }))
      const row = fields.name === current.name && fields.type === current.type
        ? yield* Effect.flatMap(
          write({ ...fields, slug: current.slug }),
          Option.match({
            onNone: () => Effect.fail(nameTaken()),
            onSome: Effect.succeed
          })
        )
        : yield* writeWithSlug(fields, write, id)
      return row
    }, requireTenantAdmin)

    const remove = Effect.fn("Categories.delete")(function*(id: CategoryId) {
      const admin = yield* TenantAdmin
      return yield* db.transaction(Effect.gen(function*() {
        const current = yield* found(yield* repo.findById(id))
        const unassigned = yield* listings.unassignCategory(id)
        yield* found(yield* repo.delete(id))
        yield* outbox.append(
          new DomainEvents.CategoryDeleted({
            category_id: id,
            type: current.type,
            unassigned_listing_ids: unassigned,
            deleted_by: admin.userId
          })
        )
        return { id, deleted: true as const, unassigned_listings: unassigned.length } satisfies CategoryDeleted
      }))
    }, requireTenantAdmin)

    return { list, adminList, create, update, remove } as const
  })
}) {}
