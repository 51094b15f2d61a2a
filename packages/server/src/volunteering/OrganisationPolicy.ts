import {
  type Actor,
  type CurrentTenant,
  CurrentUser,
  Forbidden,
  isVisibleStatus,
  type MemberRole,
  NotFound
} from "@timebank/domain"
import { Context, Effect, Option } from "effect"
import { OrganisationRepo, type OrganisationRow } from "./OrganisationRepo.js"

/** The caller manages this organisation's dashboards. Provided only by `OrganisationAccess.manage`. */
export class OrganisationManager extends Context.Tag("Policy/OrganisationManager")<OrganisationManager, {
  readonly actor: Actor
  readonly organisation: OrganisationRow
  /** `owner` for the creator and owners, `admin` for admins, null for a site super-admin without a membership. */
  readonly role: MemberRole | null
}>() {}

export const organisationNotFound = () => NotFound.of("Organisation")

/**
 * Owners keep reading a suspended organisation's dashboards, but may not change anything while it is suspended
 * (profile, wallet, opportunities, reviews of applications and hours).
 */
export const requireNotSuspended = (organisation: Pick<OrganisationRow, "status">) =>
  organisation.status === "suspended"
    ? Effect.fail(new Forbidden({ message: "This organisation is suspended" }))
    : Effect.void

/** Only an `active` (or legacy `approved`) organisation posts opportunities and takes volunteers. */
export const requireActive = (organisation: Pick<OrganisationRow, "status">) =>
  isVisibleStatus(organisation.status)
    ? Effect.void
    : Effect.fail(new Forbidden({ message: `This organisation is ${organisation.status}, not active` }))

/** Nobody approves or declines what they submitted themselves (an application, hours), not even an owner. */
export const requireNotOwn = (submittedBy: number, actor: Actor, what: string) =>
  submittedBy === actor.userId
    ? Effect.fail(new Forbidden({ message: `Nobody approves or declines their own ${what}` }))
    : Effect.void

/** Site-level `super_admin` or `god` (spec "Authorisation rules" 6). */
const isSiteSuperAdmin = (actor: Actor) => actor.isSuperAdmin || actor.isGod

/**
 * Who runs an organisation's dashboards (spec "Authorisation rules" 6): its creator; a member with an `active`
 * membership of role `owner` or `admin` (org_type `volunteer`); or a site super-admin. Community admins are not
 * on that list: they use the admin organisation routes.
 */
export class OrganisationAccess extends Effect.Service<OrganisationAccess>()("OrganisationAccess", {
  dependencies: [OrganisationRepo.Default],
  effect: Effect.gen(function*() {
    const repo = yield* OrganisationRepo

    /** The organisation of this community, any status, or 404. */
    const find = (id: number) => repo.findById(id).pipe(Effect.flatten, Effect.orElseFail(organisationNotFound))

    /** An organisation the public may see (`active`, or legacy `approved`); any other is 404. */
    const visible = (id: number) =>
      Effect.filterOrFail(find(id), (row) => isVisibleStatus(row.status), organisationNotFound)

    const roleOf = (actor: Actor, organisation: OrganisationRow) =>
      Effect.gen(function*() {
        if (actor.tenantId === actor.actingTenantId && organisation.user_id === actor.userId) {
          return Option.some<MemberRole | null>("owner")
        }
        if (actor.tenantId === actor.actingTenantId) {
          const membership = yield* repo.membership(organisation.id, actor.userId)
          if (
            Option.isSome(membership) && membership.value.status === "active" &&
            (membership.value.role === "owner" || membership.value.role === "admin")
          ) return Option.some<MemberRole | null>(membership.value.role)
        }
        return isSiteSuperAdmin(actor) ? Option.some<MemberRole | null>(null) : Option.none()
      })

    /**
     * Runs `effect` as a manager of organisation `id` (any status: owners keep reading a suspended one), or fails
     * with 404 (not an organisation of this community) or 403 `FORBIDDEN`.
     */
    const manage = (id: number) =>
    <A, E, R>(
      effect: Effect.Effect<A, E, R>
    ): Effect.Effect<A, E | NotFound | Forbidden, Exclude<R, OrganisationManager> | CurrentUser | CurrentTenant> =>
      Effect.gen(function*() {
        const actor = yield* CurrentUser
        const organisation = yield* find(id)
        const role = yield* roleOf(actor, organisation)
        if (Option.isNone(role)) {
          return yield* new Forbidden({ message: "Only this organisation's owners and admins may do this" })
        }
        return yield* Effect.provideService(effect, OrganisationManager, { actor, organisation, role: role.value })
      })

    /** {@link manage} for a change: 403 while the organisation is suspended (its owners may only read). */
    const change = (id: number) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      manage(id)(
        Effect.zipRight(Effect.flatMap(OrganisationManager, (m) => requireNotSuspended(m.organisation)), effect)
      )

    return { find, visible, manage, change } as const
  })
}) {}
