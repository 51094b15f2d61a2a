import { type Actor, CurrentUser, Forbidden } from "@timebank/domain"
import { Context, Effect } from "effect"

/**
 * Authorisation as types: a service step that needs, say, a tenant admin requires `TenantAdmin` in its context,
 * and only `requireTenantAdmin(...)` provides it, after checking the caller. A path that skipped the check does
 * not compile.
 */
const policy = <Id, Self>(
  tag: Context.Tag<Id, Actor> & Context.Tag<Self, Actor>,
  allowed: (actor: Actor) => boolean,
  message: string
) =>
<A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | Forbidden, Exclude<R, Id> | CurrentUser> =>
  Effect.flatMap(CurrentUser, (actor): Effect.Effect<A, E | Forbidden, Exclude<R, Id>> =>
    allowed(actor)
      ? Effect.provideService(effect, tag as Context.Tag<Id, Actor>, actor)
      : Effect.fail(new Forbidden({ message })))

/** A platform super-admin (`is_super_admin` or `is_god`) logged in on the `platform` tenant (decisions D3). */
export const isPlatformAdmin = (actor: Actor) => (actor.isSuperAdmin || actor.isGod) && actor.isPlatformUser

/** Tenant admin (role `admin` of this tenant) or platform super-admin. */
export const isTenantAdmin = (actor: Actor) =>
  (actor.role === "admin" && isCommunityMember(actor)) || isPlatformAdmin(actor)

/** Admin, broker or coordinator of this tenant, or platform super-admin. */
export const isStaff = (actor: Actor) =>
  (["admin", "broker", "coordinator"].includes(actor.role) && isCommunityMember(actor)) ||
  isPlatformAdmin(actor)

export class TenantAdmin extends Context.Tag("Policy/TenantAdmin")<TenantAdmin, Actor>() {}
export class Staff extends Context.Tag("Policy/Staff")<Staff, Actor>() {}
export class PlatformAdmin extends Context.Tag("Policy/PlatformAdmin")<PlatformAdmin, Actor>() {}

export const requireTenantAdmin = policy(TenantAdmin, isTenantAdmin, "Only community admins may do this")
export const requireStaff = policy(Staff, isStaff, "Only community staff may do this")
export const requirePlatformAdmin = policy(PlatformAdmin, isPlatformAdmin, "Only platform super-admins may do this")

/**
 * The caller acts as a member of the community it addresses, not as a platform super-admin visiting it: what they
 * write there (a listing, an event, an RSVP, an organisation, a review, a poll) is theirs in this community.
 */
export const isCommunityMember = (actor: Actor) => actor.tenantId === actor.actingTenantId

export class CommunityMember extends Context.Tag("Policy/CommunityMember")<CommunityMember, Actor>() {}

/** Runs `effect` as a member of this community, or fails with 403 `FORBIDDEN` ("Only members ... may <action>"). */
export const requireCommunityMember = (action: string) =>
  policy(CommunityMember, isCommunityMember, `Only members of this community may ${action}`)

/** A record somebody owns in this community: a listing, an event, ... */
export interface Owned {
  readonly user_id: number
}

/** The caller wrote `record` as a member of this community. */
export const isOwner = (actor: Actor, record: Owned) => actor.userId === record.user_id && isCommunityMember(actor)

/** The caller may change `record`: its owner or a community admin. */
export const canChangeOwned = (actor: Actor, record: Owned) => isOwner(actor, record) || isTenantAdmin(actor)

/** `require...Editor(record)` for a record its owner or a community admin may change, providing `tag` on success. */
export const requireOwnerOrAdmin =
  <Id, Self>(tag: Context.Tag<Id, Actor> & Context.Tag<Self, Actor>, message: string) => (record: Owned) =>
    policy(tag, (actor) => canChangeOwned(actor, record), message)
