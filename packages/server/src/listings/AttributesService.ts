import {
  AlreadyExists,
  type AttributeDeleted,
  type AttributeId,
  type CreateAttribute,
  DomainEvents,
  type ListingAttribute,
  NotFound,
  type UpdateAttribute,
  ValidationFailed
} from "@timebank/domain"
import { Array as Arr, Effect, Option } from "effect"
import { Outbox } from "../platform/Outbox.js"
import { requireTenantAdmin, TenantAdmin } from "../platform/Policy.js"
import { TenantSql } from "../platform/TenantSql.js"
import { type AttributeFields, AttributeRepo, type AttributeWrite } from "./AttributeRepo.js"
import { optionIssues } from "./AttributeValues.js"
import { ListingRepo } from "./ListingRepo.js"

const nameTaken = () => new AlreadyExists({ message: "An attribute with this name exists", field: "name" })

const found = <A>(row: Option.Option<A>) =>
  Option.match(row, { onNone: () => Effect.fail(NotFound.of("Attribute")), onSome: Effect.succeed })

const written = (outcome: AttributeWrite): Effect.Effect<ListingAttribute, AlreadyExists | NotFound> =>
  outcome._tag === "Written"
    ? Effect.succeed(outcome.row)
    : outcome._tag === "Taken"
    ? Effect.fail(nameTaken())
    : Effect.fail(NotFound.of("Attribute"))

const validOptions = (fields: AttributeFields) => {
  const issues = optionIssues(fields.type, fields.options)
  return Arr.isNonEmptyReadonlyArray(issues) ? Effect.fail(new ValidationFailed({ issues })) : Effect.void
}

/** Listing attributes the community defines; listings' values follow their definitions. */
export class AttributesService extends Effect.Service<AttributesService>()("AttributesService", {
  dependencies: [AttributeRepo.Default, ListingRepo.Default, Outbox.Default, TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const repo = yield* AttributeRepo
    const listings = yield* ListingRepo
    const outbox = yield* Outbox

    const list = repo.list.pipe(Effect.withSpan("Attributes.list"))

    const adminList = requireTenantAdmin(Effect.zipRight(TenantAdmin, list)).pipe(
      Effect.withSpan("Attributes.adminList")
    )

    const create = Effect.fn("Attributes.create")(function*(input: CreateAttribute) {
      const admin = yield* TenantAdmin
      const fields: AttributeFields = {
        name: input.name,
        type: input.type,
        options: input.options ?? [],
        required: input.required ?? false
      }
      yield* validOptions(fields)
      const row = yield* db.transaction(Effect.gen(function*() {
        const row = yield* Effect.flatMap(
          repo.insert(fields),
          Option.match({ onNone: () => Effect.fail(nameTaken()), onSome: Effect.succeed })
        )
        yield* outbox.append(
          new DomainEvents.AttributeCreated({
            attribute_id: row.id,
            name: row.name,
            created_by: admin.userId
          })
        )
        return row
      }))
      return row
    }, requireTenantAdmin)

    /**
     * A new type drops every listing's value of the attribute (they were of the old type); new select options drop
     * the values that are no longer options. Making an attribute required does not touch existing listings: the
     * rule applies when a listing is created or its attributes are edited.
     */
    const update = Effect.fn("Attributes.update")(function*(id: AttributeId, patch: UpdateAttribute) {
      const admin = yield* TenantAdmin
      const current = yield* found(yield* repo.findById(id))
      const type = patch.type ?? current.type
      const fields: AttributeFields = {
        name: patch.name ?? current.name,
        type,
        options: patch.options ?? (type === "select" && current.type === "select" ? current.options : []),
        required: patch.required ?? current.required
      }
      yield* validOptions(fields)
      const changed = (Object.keys(fields) as Array<keyof AttributeFields>).filter((k) =>
        k === "options" ? fields.options.join("\u0000") !== current.options.join("\u0000") : fields[k] !== current[k]
      )
      if (changed.length === 0) return current
      const key = String(id)
      const row = yield* db.transaction(Effect.gen(function*() {
        const row = yield* Effect.flatMap(repo.update(id, fields), written)
        const dropped = type !== current.type
          ? yield* listings.dropAttributeValues(key)
          : type === "select" && changed.includes("options")
          ? yield* listings.dropAttributeValues(key, fields.options)
          : 0
        yield* outbox.append(
          new DomainEvents.AttributeUpdated({
            attribute_id: id,
            fields: changed,
            dropped_values: dropped,
            updated_by: admin.userId
          })
        )
        return row
      }))
      return row
    }, requireTenantAdmin)

    const remove = Effect.fn("Attributes.delete")(function*(id: AttributeId) {
      const admin = yield* TenantAdmin
      yield* db.transaction(Effect.gen(function*() {
        yield* found(yield* repo.delete(id))
        const dropped = yield* listings.dropAttributeValues(String(id))
        yield* outbox.append(
          new DomainEvents.AttributeDeleted({
            attribute_id: id,
            dropped_values: dropped,
            deleted_by: admin.userId
          })
        )
      }))
      return { id, deleted: true as const } satisfies AttributeDeleted
    }, requireTenantAdmin)

    return { list, adminList, create, update, remove } as const
  })
}) {}
