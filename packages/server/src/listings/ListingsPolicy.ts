import { type Actor, CurrentUser, Forbidden } from "@timebank/domain"
import { Context, Effect, Option } from "effect"
import { isCommunityMember, isTenantAdmin, requireCommunityMember } from "../identity/Policy.js"
import type { ListingRow } from "./ListingRepo.js"

/** The caller may change this listing: its owner or a community admin. Provided only by `requireListingEditor`. */
export class ListingEditor extends Context.Tag("Policy/ListingEditor")<ListingEditor, Actor>() {}

export const isOwner = (actor: Actor, listing: Pick<ListingRow, "user_id">) =>
  actor.userId === Number(listing.user_id) && isCommunityMember(actor)

export const canEdit = (actor: Actor, listing: Pick<ListingRow, "user_id">) =>
  isOwner(actor, listing) || isTenantAdmin(actor)

/**
 * Who sees a listing: anyone while it is active; its owner and community admins while it is pending. Others are
 * told it does not exist, so a pending listing's existence does not leak.
 */
export const canSee = (viewer: Option.Option<Actor>, listing: Pick<ListingRow, "user_id" | "status">) =>
  listing.status === "active" || Option.exists(viewer, (actor) => canEdit(actor, listing))

/** Runs `effect` as the editor of `listing`, or fails with 403 `FORBIDDEN`. */
export const requireListingEditor =
  (listing: Pick<ListingRow, "user_id">) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | Forbidden, Exclude<R, ListingEditor> | CurrentUser> =>
    Effect.flatMap(
      CurrentUser,
      (actor): Effect.Effect<A, E | Forbidden, Exclude<R, ListingEditor>> =>
        canEdit(actor, listing)
          ? Effect.provideService(effect, ListingEditor, actor)
          : Effect.fail(new Forbidden({ message: "Only the owner or a community admin may change this listing" }))
    )

/** Posting listings is for members of this community (not visiting super-admins). */
export const requireListingAuthor = requireCommunityMember("post listings")
