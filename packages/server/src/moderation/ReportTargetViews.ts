import {
  type CurrentTenant,
  type CurrentUser,
  type EventId,
  type FeedCommentId,
  type FeedPostId,
  type Forbidden,
  type ListingId,
  type ModerationStateConflict,
  NotFound,
  type ReportTargetSnapshot,
  type ReportTargetType,
  type UserSummary,
  ValidationFailed
} from "@timebank/domain"
import { Effect, Option } from "effect"
import { AdminEventsService } from "../events/AdminEventsService.js"
import { FeedAdminService } from "../feed/FeedAdminService.js"
import { GroupDirectory } from "../groups/GroupDirectory.js"
import { MemberDirectory } from "../identity/MemberDirectory.js"
import { UserSummaries } from "../identity/UserSummaries.js"
import { AdminListingsService } from "../listings/AdminListingsService.js"
import { MessageDirectory } from "../messaging/MessageDirectory.js"
import { ReviewsAdminService } from "../volunteering/ReviewsAdminService.js"

/** What a report is about, as the admin resolving it needs it. */
export interface ReportSubject {
  readonly target_type: ReportTargetType
  readonly target_id: number
  readonly reporter_id: number
}

/** The target as it is now, and the member `suspend_member` suspends (null: none can be named). */
export interface InspectedTarget {
  readonly snapshot: ReportTargetSnapshot
  readonly memberId: number | null
}

/** Hiding a target through its owner. */
type Hiding = Effect.Effect<unknown, NotFound | Forbidden | ModerationStateConflict, CurrentTenant | CurrentUser>

/** What was found of the target; undefined when it is gone. */
type Found = { readonly facts: Facts; readonly memberId: number | null } | undefined

interface Facts {
  readonly title?: string | null
  readonly body?: string | null
  readonly author?: UserSummary | null
  readonly status?: string | null
  readonly is_hidden?: boolean | null
}

const NOT_HIDEABLE = "only a reported post, comment or review can be hidden"

/**
 * Moderation's port to the features whose records members report, for their admins: each target as it is now,
 * read through its owner's admin service or directory (never its tables), and hiding it through the owner. Called
 * inside an admin's request (the owners' admin services check the caller again).
 */
export class ReportTargetViews extends Effect.Service<ReportTargetViews>()("ReportTargetViews", {
  dependencies: [
    MemberDirectory.Default,
    UserSummaries.Default,
    AdminListingsService.Default,
    AdminEventsService.Default,
    GroupDirectory.Default,
    FeedAdminService.Default,
    ReviewsAdminService.Default,
    MessageDirectory.Default
  ],
  effect: Effect.gen(function*() {
    const members = yield* MemberDirectory
    const users = yield* UserSummaries
    const listings = yield* AdminListingsService
    const events = yield* AdminEventsService
    const groups = yield* GroupDirectory
    const feed = yield* FeedAdminService
    const reviews = yield* ReviewsAdminService
    const messages = yield* MessageDirectory

    /** A read that fails with 404 when the record is gone, as undefined; other failures pass through. */
    const orGone = <A, E, R>(read: Effect.Effect<A, E | NotFound, R>) =>
      Effect.catchIf(read, (e): e is NotFound => e instanceof NotFound, () => Effect.succeed(undefined))

    const inspectFacts = (
      subject: ReportSubject
    ): Effect.Effect<Found, Forbidden, CurrentTenant | CurrentUser> => {
      const id = subject.target_id
      switch (subject.target_type) {
        case "user":
          return Effect.gen(function*() {
            const member = yield* members.find(id)
            if (Option.isNone(member)) return undefined
            const summary = (yield* users.byIds([id])).get(id)
            return {
              facts: {
                title: summary === undefined ? null : `${summary.first_name} ${summary.last_name}`.trim(),
                author: summary ?? null,
                status: member.value.status
              } satisfies Facts,
              memberId: id
            }
          })
        case "listing":
          return Effect.map(orGone(listings.get(id as ListingId)), (listing) =>
            listing && {
              facts: { title: listing.title, body: listing.description, author: listing.user, status: listing.status },
              memberId: listing.user_id as number
            })
        case "event":
          return Effect.map(orGone(events.get(id as EventId)), (event) =>
            event && {
              facts: { title: event.title, body: event.description, author: event.organiser, status: event.status },
              memberId: event.user_id as number
            })
        case "group":
          return Effect.map(groups.find(id), (group) =>
            Option.isNone(group)
              ? undefined
              : { facts: { title: group.value.name, status: group.value.status }, memberId: null })
        case "feed_post":
          return Effect.map(orGone(feed.getPost(id as FeedPostId)), (post) =>
            post && {
              facts: { body: post.body, author: post.author, is_hidden: post.is_hidden },
              memberId: post.author.id as number
            })
        case "comment":
          return Effect.map(orGone(feed.getComment(id as FeedCommentId)), (comment) =>
            comment && {
              facts: { body: comment.body, author: comment.author, is_hidden: comment.is_hidden },
              memberId: comment.author.id as number
            })
        case "review":
          return Effect.map(orGone(reviews.get(id)), (review) =>
            review && {
              facts: { body: review.comment, author: review.reviewer, is_hidden: review.is_hidden },
              memberId: review.reviewer_id
            })
        case "message":
          // Messaging publishes no reader of messages to admins: whether it is still there (between the reporter
          // and someone) is all a report shows of it.
          return Effect.map(
            messages.visibleTo(id, subject.reporter_id),
            (there) => there ? { facts: {} satisfies Facts, memberId: null } : undefined
          )
      }
    }

    /** The target as it is now; `exists: false` when it has been deleted since. */
    const inspect = (subject: ReportSubject) =>
      Effect.map(inspectFacts(subject), (found): InspectedTarget => ({
        snapshot: {
          type: subject.target_type,
          id: subject.target_id,
          exists: found !== undefined,
          title: found?.facts.title ?? null,
          body: found?.facts.body ?? null,
          author: found?.facts.author ?? null,
          status: found?.facts.status ?? null,
          is_hidden: found?.facts.is_hidden ?? null
        },
        memberId: found?.memberId ?? null
      }))

    /** Hides the reported post, comment or review (hidden already is fine); another kind or gone → 422 `action`. */
    const hide = (subject: ReportSubject) => {
      const gone = () => ValidationFailed.field("action", `the reported ${subject.target_type} no longer exists`)
      const id = subject.target_id
      const hiding: Hiding | undefined = subject.target_type === "feed_post"
        ? feed.ensurePostHidden(id)
        : subject.target_type === "comment"
        ? feed.ensureCommentHidden(id)
        : subject.target_type === "review"
        ? reviews.ensureHidden(id)
        : undefined
      if (hiding === undefined) return Effect.fail(ValidationFailed.field("action", NOT_HIDEABLE))
      return hiding.pipe(
        Effect.catchIf((e): e is NotFound => e instanceof NotFound, () => gone()),
        // The owners' `ensure…Hidden` accept a target hidden already: this conflict cannot arise.
        Effect.catchTag("ModerationStateConflict", (e) => Effect.die(e)),
        Effect.asVoid
      )
    }

    return { inspect, hide } as const
  })
}) {}
