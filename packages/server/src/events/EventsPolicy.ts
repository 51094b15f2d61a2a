import type { Actor } from "@timebank/domain"
import { Context } from "effect"
import { canChangeOwned, requireCommunityMember, requireOwnerOrAdmin } from "../platform/Policy.js"

/**
 * The caller runs this event: its organiser or a community admin (spec "Authorisation rules" 6: edit, cancel, delete,
 * image, check-in, the full waitlist). Provided only by `requireEventEditor`.
 */
export class EventEditor extends Context.Tag("Policy/EventEditor")<EventEditor, Actor>() {}

export const canEditEvent = canChangeOwned

/** Runs `effect` as an editor of `event`, or fails with 403 `FORBIDDEN`. */
export const requireEventEditor = requireOwnerOrAdmin(
  EventEditor,
  "Only the organiser or a community admin may change this event"
)

/** Organising, answering and joining waitlists are for members of this community (not visiting super-admins). */
export const requireEventMember = requireCommunityMember("organise or answer its events")
