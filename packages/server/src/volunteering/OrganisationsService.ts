import {
  CurrentUser,
  DIRECTORY_PER_PAGE_DEFAULT,
  type DirectoryParams,
  type MemberRole,
  type MyOrganisation,
  type OrganisationId,
  type RegisterOrganisation,
  type UpdateOrganisation
} from "@timebank/domain"
import { Effect } from "effect"
import { CommunityMember, requireCommunityMember } from "../platform/Policy.js"
import { DirectoryPage } from "./DirectoryPage.js"
import { OrganisationAccess, OrganisationManager } from "./OrganisationPolicy.js"
import { OrganisationRegistration } from "./OrganisationRegistration.js"
import { OrganisationRepo, type OrganisationRow } from "./OrganisationRepo.js"
import { OrganisationViews } from "./OrganisationViews.js"

/**
 * A site super-admin manages every organisation without being its member; in `MyOrganisation` they show as
 * `admin` (they may do what an organisation admin may, and they do not own it).
 */
const SUPER_ADMIN_ROLE: MemberRole = "admin"

/** The public directory and detail, registration, "my organisations" and the owners' profile edit. */
export class OrganisationsService extends Effect.Service<OrganisationsService>()("OrganisationsService", {
  dependencies: [
    OrganisationRepo.Default,
    OrganisationViews.Default,
    OrganisationAccess.Default,
    OrganisationRegistration.Default,
    DirectoryPage.Default
  ],
  effect: Effect.gen(function*() {
    const repo = yield* OrganisationRepo
    const views = yield* OrganisationViews
    const access = yield* OrganisationAccess
    const registration = yield* OrganisationRegistration
    const directoryPage = yield* DirectoryPage

    const asMine = (row: OrganisationRow, role: MemberRole) =>
      Effect.map(views.mine([{ ...row, member_role: role }]), (items) => items[0] as MyOrganisation)

    /** One prepared query per page, however long: the page with its owners and aggregates, as its JSON. */
    const directory = Effect.fn("Organisations.directory")(function*(params: DirectoryParams) {
      return yield* directoryPage.page({
        before: params.cursor,
        search: params.search,
        perPage: params.per_page ?? DIRECTORY_PER_PAGE_DEFAULT
      })
    })

    /** Only visible (`active`/`approved`) organisations exist for the public. */
    const get = Effect.fn("Organisations.get")(function*(id: OrganisationId) {
      return yield* views.detail(yield* access.visible(id))
    })

    const mine = Effect.fn("Organisations.mine")(function*() {
      const actor = yield* CurrentUser
      return yield* views.mine(yield* repo.managedBy(actor.userId))
    })

    const register = Effect.fn("Organisations.register")(
      function*(input: RegisterOrganisation) {
        const member = yield* CommunityMember
        const row = yield* registration.create({ ...input, ownerId: member.userId, status: "pending" }, member.userId)
        return yield* asMine(row, "owner")
      },
      requireCommunityMember("register organisations")
    )

    const applyUpdate = (patch: UpdateOrganisation) =>
      Effect.gen(function*() {
        const { actor, organisation, role } = yield* OrganisationManager
        const updated = yield* registration.update(organisation, patch, actor.userId)
        return yield* asMine(updated, role ?? SUPER_ADMIN_ROLE)
      })

    const update = Effect.fn("Organisations.update")(function*(id: OrganisationId, patch: UpdateOrganisation) {
      return yield* access.change(id)(applyUpdate(patch))
    })

    return { directory, get, mine, register, update } as const
  })
}) {}
