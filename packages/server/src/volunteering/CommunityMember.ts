import { type Actor, CurrentUser, Forbidden } from "@timebank/domain"
import { Context, Effect } from "effect"

/**
 * The caller acts as a member of the community it addresses, not as a platform super-admin visiting it: what they
 * write (an organisation they own, a review they sign) is theirs in this community. Provided only by
 * `requireCommunityMember`.
 */
export class CommunityMember extends Context.Tag("Policy/CommunityMember")<CommunityMember, Actor>() {}

/** Runs `effect` as a member of this community, or fails with 403 `FORBIDDEN`. */
export const requireCommunityMember = (action: string) =>
<A, E, R>(
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E | Forbidden, Exclude<R, CommunityMember> | CurrentUser> =>
  Effect.flatMap(
    CurrentUser,
    (actor): Effect.Effect<A, E | Forbidden, Exclude<R, CommunityMember>> =>
      actor.tenantId === actor.actingTenantId
        ? Effect.provideService(effect, CommunityMember, actor)
        : Effect.fail(new Forbidden({ message: `Only members of this community may ${action}` }))
  )
