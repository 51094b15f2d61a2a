import { AlreadyExists, type NewGroupType } from "@timebank/domain"
import { Effect, Option } from "effect"
import { GroupTypeRepo } from "./GroupTypeRepo.js"
import { GroupViews } from "./GroupViews.js"

/**
 * Group types: members read the catalogue with each type's policies; the admin catalogue (decisions D17,
 * `/admin/groups/types`, `types/GroupTypesAdminService.ts`) creates them through `create`, behind its admin policy.
 */
export class GroupTypesService extends Effect.Service<GroupTypesService>()("GroupTypesService", {
  dependencies: [GroupTypeRepo.Default, GroupViews.Default],
  effect: Effect.gen(function*() {
    const repo = yield* GroupTypeRepo
    const views = yield* GroupViews

    const list = Effect.fn("GroupTypes.list")(function*() {
      return (yield* repo.list).map(views.groupType)
    })

    /** A new type of the current community; a name it has already (any case) is 409 `ALREADY_EXISTS` on `name`. */
    const create = Effect.fn("GroupTypes.create")(function*(input: NewGroupType) {
      const row = yield* repo.insert(input.name.trim(), input.description?.trim() ?? "", input.policies)
      return yield* Option.match(row, {
        onNone: () =>
          Effect.fail(new AlreadyExists({ message: "A group type of this name exists already", field: "name" })),
        onSome: (created) => Effect.succeed(views.groupType(created))
      })
    })

    return { list, create } as const
  })
}) {}
