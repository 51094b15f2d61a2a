import { type Actor, CurrentUser, Forbidden } from "@timebank/domain"
import { Context, Effect } from "effect"
import { isCommunityMember, isTenantAdmin, requireCommunityMember } from "../identity/Policy.js"

/**
 * The caller runs this event: its organiser or a community admin (spec "Authorisation rules" 6: edit, cancel, delete,
 * image, check-in, the full waitlist). Provided only by `requireEventEditor`.
 */
export class EventEditor extends Context.Tag("Policy/EventEditor")<EventEditor, Actor>() {}

/** An event as the policies need it: who organises it (a row's text id or a number). */
export interface Organised {
  readonly user_id: string | number
}

export const isEventOrganiser = (actor: Actor, event: Organised) =>
  actor.userId === Number(event.user_id) && isCommunityMember(actor)

export const canEditEvent = (actor: Actor, event: Organised) => isEventOrganiser(actor, event) || isTenantAdmin(actor)

/** Runs `effect` as an editor of `event`, or fails with 403 `FORBIDDEN`. */
export const requireEventEditor =
  (event: Organised) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | Forbidden, Exclude<R, EventEditor> | CurrentUser> =>
    Effect.flatMap(
      CurrentUser,
      (actor): Effect.Effect<A, E | Forbidden, Exclude<R, EventEditor>> =>
        canEditEvent(actor, event)
          ? Effect.provideService(effect, EventEditor, actor)
          : Effect.fail(new Forbidden({ message: "Only the organiser or a community admin may change this event" }))
    )

/** Organising, answering and joining waitlists are for members of this community (not visiting super-admins). */
export const requireEventMember = requireCommunityMember("organise or answer its events")
