import type { Actor } from "@timebank/domain"
import { Context, Option } from "effect"
import { canChangeOwned, requireCommunityMember, requireOwnerOrAdmin } from "../platform/Policy.js"
import type { ListingRow } from "./ListingRepo.js"

/** The caller may change this listing: its owner or a community admin. Provided only by `requireListingEditor`. */
export class ListingEditor extends Context.Tag("Policy/ListingEditor")<ListingEditor, Actor>() {}

export const canEdit = canChangeOwned

/**
 * Who sees a listing: anyone while it is active; its owner and community admins while it is pending. Others are
 * told it does not exist, so a pending listing's existence does not leak.
 */
export const canSee = (viewer: Option.Option<Actor>, listing: Pick<ListingRow, "user_id" | "status">) =>
  listing.status === "active" || Option.exists(viewer, (actor) => canEdit(actor, listing))

/** Runs `effect` as the editor of `listing`, or fails with 403 `FORBIDDEN`. */
export const requireListingEditor = requireOwnerOrAdmin(
  ListingEditor,
  "Only the owner or a community admin may change this listing"
)

/** Posting listings is for members of this community (not visiting super-admins). */
export const requireListingAuthor = requireCommunityMember("post listings")
