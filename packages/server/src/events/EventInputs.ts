import { type Actor, type CreateEvent, type CurrentTenant, Forbidden, type ValidationIssue } from "@timebank/domain"
import { Effect, Option } from "effect"
import { GroupDirectory } from "../groups/GroupDirectory.js"
import { CategoryDirectory } from "../listings/CategoryDirectory.js"
import { isTenantAdmin } from "../platform/Policy.js"
import { slugify } from "../platform/Slug.js"
import { PollsService } from "../polls/PollsService.js"
import type { EventInsert } from "./EventRow.js"

/** A resolved category reference: the id to store (undefined: none sent), or what is wrong with it. */
export interface CategoryChoice {
  readonly id?: number | null | undefined
  readonly issues: ReadonlyArray<ValidationIssue>
}

/** The columns a create writes, from the create fields (one event, or a recurring template and its occurrences). */
export const eventInsertOf = (
  input: CreateEvent,
  organiserId: number,
  times: { readonly start: Date; readonly end: Date | null },
  categoryId: number | null
): EventInsert => ({
  user_id: organiserId,
  title: input.title,
  description: input.description,
  start_time: times.start,
  end_time: times.end,
  location: input.location ?? null,
  latitude: input.latitude ?? null,
  longitude: input.longitude ?? null,
  max_attendees: input.max_attendees ?? null,
  is_online: input.is_online ?? false,
  online_link: input.online_link ?? null,
  video_url: input.video_url ?? null,
  allow_remote_attendance: input.allow_remote_attendance ?? false,
  image_url: input.image_url ?? null,
  category_id: categoryId,
  group_id: input.group_id ?? null,
  federated_visibility: input.federated_visibility ?? "none",
  members_only: input.members_only ?? false
})

/**
 * The checks of an event's create and edit fields that need the database: its category, its group and its polls. Shared by the
 * plain event routes and the recurring ones, so that both accept exactly the same events.
 */
export class EventInputs extends Effect.Service<EventInputs>()("EventInputs", {
  dependencies: [CategoryDirectory.Default, GroupDirectory.Default, PollsService.Default],
  effect: Effect.gen(function*() {
    const categories = yield* CategoryDirectory
    const polls = yield* PollsService
    const groups = yield* GroupDirectory

    /** The category an event names: an `event` category of this community, by id or by slug (not both). */
    const resolveCategory = (
      categoryId: number | null | undefined,
      categoryName: string | undefined
    ): Effect.Effect<CategoryChoice, never, CurrentTenant> =>
      Effect.gen(function*() {
        if (categoryName !== undefined && categoryId !== undefined && categoryId !== null) {
          return { issues: [{ field: "category_name", message: "give category_id or category_name, not both" }] }
        }
        if (categoryName !== undefined) {
          const slug = slugify(categoryName, "")
          const named = slug === "" ? Option.none() : yield* categories.findBySlug("event", slug)
          return Option.match(named, {
            onNone: () => ({
              issues: [{ field: "category_name", message: "is not an event category of this community" }]
            }),
            onSome: (category) => ({ id: category.id, issues: [] })
          })
        }
        if (categoryId === undefined || categoryId === null) return { id: categoryId, issues: [] }
        const category = yield* categories.findById(categoryId)
        return Option.isSome(category) && category.value.type === "event"
          ? { id: categoryId, issues: [] }
          : { issues: [{ field: "category_id", message: "is not an event category of this community" }] }
      })

    /** Spec "Errors": every poll an event carries must be the caller's own, else 403 FORBIDDEN. */
    const requireOwnPolls = (pollIds: ReadonlyArray<number>, userId: number) =>
      Effect.flatMap(polls.ownedBy(pollIds, userId), (foreign) =>
        foreign.length === 0
          ? Effect.void
          : Effect.fail(
            new Forbidden({ message: `Polls ${foreign.join(", ")} are not yours to attach`, field: "poll_ids" })
          ))

    /**
     * The group an event is posted in (none: nothing to check): a group of this community that the caller is an
     * active member of (admins: any group of it). Another community's group reads as unknown.
     */
    const groupIssues = (
      groupId: number | null | undefined,
      actor: Actor
    ): Effect.Effect<ReadonlyArray<ValidationIssue>, never, CurrentTenant> =>
      groupId === undefined || groupId === null
        ? Effect.succeed([])
        : Effect.gen(function*() {
          const group = yield* groups.find(groupId)
          if (Option.isNone(group)) return [{ field: "group_id", message: "is not a group of this community" }]
          if (isTenantAdmin(actor) || (yield* groups.isActiveMember(groupId, actor.userId))) return []
          return [{ field: "group_id", message: "is a group you are not an active member of" }]
        })

    return { resolveCategory, groupIssues, requireOwnPolls } as const
  })
}) {}
