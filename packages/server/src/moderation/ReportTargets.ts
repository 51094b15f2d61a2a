import type { Actor, CurrentTenant, ReportTargetType } from "@timebank/domain"
import { Effect, Option } from "effect"
import { EventDirectory } from "../events/EventDirectory.js"
import { FeedDirectory } from "../feed/FeedDirectory.js"
import { GroupDirectory } from "../groups/GroupDirectory.js"
import { MemberDirectory } from "../identity/MemberDirectory.js"
import { ListingDirectory } from "../listings/ListingDirectory.js"
import { MessageDirectory } from "../messaging/MessageDirectory.js"
import { isTenantAdmin } from "../platform/Policy.js"
import { ReviewDirectory } from "../volunteering/ReviewDirectory.js"

/**
 * Moderation's port to the features whose records members report: "is this a record of this community that the
 * reporter can see?", answered by each owner's published directory. A record the reporter cannot see answers
 * false exactly like one that does not exist, so a report never reveals another tenant's records or hidden ones.
 */
export class ReportTargets extends Effect.Service<ReportTargets>()("ReportTargets", {
  dependencies: [
    MemberDirectory.Default,
    ListingDirectory.Default,
    EventDirectory.Default,
    ReviewDirectory.Default,
    GroupDirectory.Default,
    FeedDirectory.Default,
    MessageDirectory.Default
  ],
  effect: Effect.gen(function*() {
    const members = yield* MemberDirectory
    const listings = yield* ListingDirectory
    const events = yield* EventDirectory
    const reviews = yield* ReviewDirectory
    const groups = yield* GroupDirectory
    const feed = yield* FeedDirectory
    const messages = yield* MessageDirectory

    const exists = (
      targetType: ReportTargetType,
      targetId: number,
      reporter: Actor
    ): Effect.Effect<boolean, never, CurrentTenant> => {
      switch (targetType) {
        case "user":
          return Effect.map(members.find(targetId), Option.isSome)
        case "listing":
          return listings.visibleTo(targetId, reporter)
        case "event":
          return events.exists(targetId)
        case "review":
          return reviews.exists(targetId)
        case "group":
          return groups.visibleTo(targetId, { userId: reporter.userId, isAdmin: isTenantAdmin(reporter) })
        case "feed_post":
          return feed.postVisibleTo(targetId, reporter)
        case "comment":
          return feed.commentVisibleTo(targetId, reporter)
        case "message":
          return messages.visibleTo(targetId, reporter.userId)
      }
    }

    return { exists } as const
  })
}) {}
