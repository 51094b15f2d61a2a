import {
  type Actor,
  type CurrentTenant,
  CurrentUser,
  Forbidden,
  LISTED_GROUP_STATUSES,
  NotFound
} from "@timebank/domain"
import { Context, Effect, Option } from "effect"
import { isCommunityMember, isTenantAdmin } from "../platform/Policy.js"
import { GroupMemberRepo, type MemberRow } from "./GroupMemberRepo.js"
import { GroupRepo, type GroupRow } from "./GroupRepo.js"

export const groupNotFound = () => NotFound.of("Group")

/** A group as the caller meets it: the group, their membership of it (any status) and whether they are an admin. */
export interface GroupAccessContext {
  readonly actor: Actor
  readonly group: GroupRow
  readonly membership: Option.Option<MemberRow>
  /** A community admin (or a platform super-admin): they run every group without being its member. */
  readonly isAdmin: boolean
}

export const isActiveMember = (ctx: GroupAccessContext) => Option.exists(ctx.membership, (m) => m.status === "active")

/** An active organiser of the group, the owner included. */
export const isOrganiser = (ctx: GroupAccessContext) =>
  Option.exists(ctx.membership, (m) => m.status === "active" && (m.role === "owner" || m.role === "organiser"))

export const isOwner = (ctx: GroupAccessContext) =>
  Option.exists(ctx.membership, (m) => m.status === "active" && m.role === "owner")

/** Who sees a group: everyone while it is listed; its active members and admins while it waits or was rejected. */
export const canSee = (ctx: GroupAccessContext) =>
  LISTED_GROUP_STATUSES.includes(ctx.group.status) || isActiveMember(ctx) || ctx.isAdmin

/** Who runs a group (edits, deletes, decides memberships): its organisers, the owner included, and admins. */
export const canManage = (ctx: GroupAccessContext) => isOrganiser(ctx) || ctx.isAdmin

/** Who reads a group's members: anyone for a public group; active members and admins for a private one. */
export const canReadMembers = (ctx: GroupAccessContext) =>
  ctx.group.visibility === "public" || isActiveMember(ctx) || ctx.isAdmin

/** Who reads a group's chatroom (members only, decisions D14): active members, and admins who moderate. */
export const canReadChat = (ctx: GroupAccessContext) => isActiveMember(ctx) || ctx.isAdmin

/** The caller runs this group. Provided only by `requireGroupManager`. */
export class GroupManager extends Context.Tag("Policy/GroupManager")<GroupManager, GroupAccessContext>() {}

/** The caller is an active member of this group. Provided only by `requireGroupParticipant`. */
export class GroupParticipant extends Context.Tag("Policy/GroupParticipant")<GroupParticipant, GroupAccessContext>() {}

const policy =
  <Id>(tag: Context.Tag<Id, GroupAccessContext>, allowed: (ctx: GroupAccessContext) => boolean, message: string) =>
  (ctx: GroupAccessContext) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | Forbidden, Exclude<R, Id>> =>
    allowed(ctx)
      ? Effect.provideService(effect, tag, ctx)
      : Effect.fail(new Forbidden({ message }))

/** Runs `effect` as a manager of the group (organiser, owner or admin), or fails with 403 `FORBIDDEN`. */
export const requireGroupManager = policy(
  GroupManager,
  canManage,
  "Only the group's organisers and community admins may do this"
)

/** Runs `effect` as an active member of the group, or fails with 403 `FORBIDDEN`. */
export const requireGroupParticipant = policy(
  GroupParticipant,
  isActiveMember,
  "Only active members of this group may do this"
)

/** Finds groups as the caller may meet them. */
export class GroupAccess extends Effect.Service<GroupAccess>()("GroupAccess", {
  dependencies: [GroupRepo.Default, GroupMemberRepo.Default],
  effect: Effect.gen(function*() {
    const groups = yield* GroupRepo
    const members = yield* GroupMemberRepo

    /** The caller's view of group `id`, or 404 when it is none of this community's or hidden from them. */
    const visible = (id: number): Effect.Effect<GroupAccessContext, NotFound, CurrentUser | CurrentTenant> =>
      Effect.gen(function*() {
        const actor = yield* CurrentUser
        const group = yield* Effect.flatMap(
          groups.findById(id),
          Option.match({
            onNone: () => Effect.fail(groupNotFound()),
            onSome: Effect.succeed
          })
        )
        // A visiting platform super-admin is no member of this community's groups.
        const membership = isCommunityMember(actor) ? yield* members.find(group.id, actor.userId) : Option.none()
        const ctx: GroupAccessContext = { actor, group, membership, isAdmin: isTenantAdmin(actor) }
        if (!canSee(ctx)) return yield* groupNotFound()
        return ctx
      })

    return { visible } as const
  })
}) {}
