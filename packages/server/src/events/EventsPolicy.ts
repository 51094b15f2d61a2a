import { type Actor, CurrentUser, Forbidden } from "@timebank/domain"
import { Context, Effect } from "effect"
import { isTenantAdmin } from "../identity/Policy.js"

/**
 * The caller runs this event: its organiser or a community admin (spec "Authorisation rules" 6: edit, cancel, delete,
 * image, check-in, the full waitlist). Provided only by `requireEventEditor`.
 */
export class EventEditor extends Context.Tag("Policy/EventEditor")<EventEditor, Actor>() {}

/**
 * The caller acts as a member of the community it addresses (not a super-admin visiting it): organising, answering
 * and joining waitlists. Provided only by `requireEventMember`.
 */
export class EventMember extends Context.Tag("Policy/EventMember")<EventMember, Actor>() {}

/** An event as the policies need it: who organises it (a row's text id or a number). */
export interface Organised {
  readonly user_id: string | number
}

export const isMemberHere = (actor: Actor) => actor.tenantId === actor.actingTenantId

export const isEventOrganiser = (actor: Actor, event: Organised) =>
  actor.userId === Number(event.user_id) && isMemberHere(actor)

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

/** Runs `effect` as a member acting in their own community, or fails with 403 `FORBIDDEN`. */
export const requireEventMember = <A, E, R>(
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E | Forbidden, Exclude<R, EventMember> | CurrentUser> =>
  Effect.flatMap(
    CurrentUser,
    (actor): Effect.Effect<A, E | Forbidden, Exclude<R, EventMember>> =>
      isMemberHere(actor)
        ? Effect.provideService(effect, EventMember, actor)
        : Effect.fail(new Forbidden({ message: "Only members of this community may organise or answer its events" }))
  )
