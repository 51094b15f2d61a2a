import {
  AdminGroupType,
  type AdminGroupTypesParams,
  AlreadyExists,
  type CreateGroupType,
  type GroupTypeDeleted,
  type GroupTypeId,
  GroupTypeInUse,
  type GroupTypePoliciesInput,
  NotFound,
  offsetMeta,
  type UpdateGroupType
} from "@timebank/domain"
import { Effect, Option } from "effect"
import { offsetPage } from "../../platform/Paging.js"
import { requireTenantAdmin, TenantAdmin } from "../../platform/Policy.js"
import { TenantSql } from "../../platform/TenantSql.js"
import { GroupTypeRepo, type GroupTypeRow, policiesOf } from "../GroupTypeRepo.js"
import { GroupTypesService } from "../GroupTypesService.js"
import { GroupViews } from "../GroupViews.js"

const PER_PAGE_DEFAULT = 20

const typeNotFound = () => NotFound.of("Group type")

const nameTaken = () => new AlreadyExists({ message: "A group type of this name exists already", field: "name" })

const found = <A>(row: Option.Option<A>) =>
  Option.match(row, { onNone: () => Effect.fail(typeNotFound()), onSome: Effect.succeed })

/**
 * The admin catalogue of group types (decisions D17 "Groups admin", `/admin/groups/types`): the list with each type's
 * group count, creating, renaming and deleting types (not while a group has one: 409 `IN_USE`), and their policies.
 * Every step needs a tenant admin (or a platform super-admin naming the community).
 */
export class GroupTypesAdminService extends Effect.Service<GroupTypesAdminService>()("GroupTypesAdminService", {
  dependencies: [GroupTypeRepo.Default, GroupTypesService.Default, GroupViews.Default, TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const repo = yield* GroupTypeRepo
    const types = yield* GroupTypesService
    const views = yield* GroupViews

    const adminView = (row: GroupTypeRow, groupCount: number) =>
      AdminGroupType.make({ ...views.groupType(row), group_count: groupCount })

    /** One statement per page: the types, their group counts and the total (a page past the end counts apart). */
    const list = Effect.fn("GroupTypesAdmin.list")(function*(params: AdminGroupTypesParams) {
      yield* TenantAdmin
      const { page, perPage } = offsetPage(params, PER_PAGE_DEFAULT)
      const rows = yield* repo.page(perPage, (page - 1) * perPage)
      const total = rows.length > 0 ? rows[0]!.total : yield* repo.count
      return { data: rows.map((row) => adminView(row, row.group_count)), meta: offsetMeta(page, perPage, total) }
    }, requireTenantAdmin)

    const create = Effect.fn("GroupTypesAdmin.create")(function*(input: CreateGroupType) {
      yield* TenantAdmin
      const created = yield* types.create(input)
      return AdminGroupType.make({ ...created, group_count: 0 })
    }, requireTenantAdmin)

    const update = Effect.fn("GroupTypesAdmin.update")(function*(id: GroupTypeId, patch: UpdateGroupType) {
      yield* TenantAdmin
      const outcome = yield* repo.update(id, patch)
      if (outcome._tag === "NotFound") return yield* typeNotFound()
      if (outcome._tag === "Taken") return yield* nameTaken()
      return adminView(outcome.row, yield* repo.groupCount(id))
    }, requireTenantAdmin)

    const remove = Effect.fn("GroupTypesAdmin.delete")(function*(id: GroupTypeId) {
      yield* TenantAdmin
      // A failure rolls the transaction back: deleted groups keep the type when it stays.
      yield* db.transaction(Effect.gen(function*() {
        const outcome = yield* repo.delete(id)
        if (outcome === "NotFound") return yield* typeNotFound()
        if (outcome === "InUse") {
          return yield* new GroupTypeInUse({ message: "Groups have this type; give them another type first" })
        }
      }))
      return { id, deleted: true as const } satisfies GroupTypeDeleted
    }, requireTenantAdmin)

    const policies = Effect.fn("GroupTypesAdmin.policies")(function*(id: GroupTypeId) {
      yield* TenantAdmin
      return policiesOf(yield* found(yield* repo.findById(id)))
    }, requireTenantAdmin)

    const setPolicies = Effect.fn("GroupTypesAdmin.setPolicies")(
      function*(id: GroupTypeId, patch: GroupTypePoliciesInput) {
        yield* TenantAdmin
        return policiesOf(yield* found(yield* repo.setPolicies(id, patch)))
      },
      requireTenantAdmin
    )

    return { list, create, update, remove, policies, setPolicies } as const
  })
}) {}
