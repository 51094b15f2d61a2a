import { type Actor, Forbidden } from "@timebank/domain"
import { Context, Effect } from "effect"
import { CommunityMember } from "../platform/Policy.js"
import type { ConnectionRow } from "./ConnectionRepo.js"

/** The caller was asked: only they accept or decline. Provided only by `requireConnectionTarget`. */
export class ConnectionTarget extends Context.Tag("Policy/ConnectionTarget")<ConnectionTarget, ConnectionRow>() {}

/** The caller is one of the two members: either may withdraw or end it. Provided only by `requireConnectionParty`. */
export class ConnectionParty extends Context.Tag("Policy/ConnectionParty")<ConnectionParty, ConnectionRow>() {}

export const isTarget = (actor: Actor, row: ConnectionRow) => actor.userId === row.target_id
export const isParty = (actor: Actor, row: ConnectionRow) =>
  actor.userId === row.requester_id || actor.userId === row.target_id

const policy = <Id>(
  tag: Context.Tag<Id, ConnectionRow>,
  allowed: (actor: Actor, row: ConnectionRow) => boolean,
  message: string
) =>
(row: ConnectionRow) =>
<A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | Forbidden, Exclude<R, Id> | CommunityMember> =>
  Effect.flatMap(CommunityMember, (actor): Effect.Effect<A, E | Forbidden, Exclude<R, Id>> =>
    allowed(actor, row)
      ? Effect.provideService(effect, tag, row)
      : Effect.fail(new Forbidden({ message })))

/**
 * Runs `effect` as the member a request asked, or fails with 403 `FORBIDDEN` (the requester withdraws with DELETE
 * instead; a third member has no say).
 */
export const requireConnectionTarget = policy(
  ConnectionTarget,
  isTarget,
  "Only the member who was asked may answer this request"
)

/**
 * Runs `effect` as one of the connection's two members, or fails with 403 `FORBIDDEN`. A third member of the
 * community learns that the id exists, nothing more: ids are no secret, the two members are.
 */
export const requireConnectionParty = policy(
  ConnectionParty,
  isParty,
  "Only the two members of a connection may end it"
)
