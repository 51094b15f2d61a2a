import type { CurrentTenant } from "@timebank/domain"
import { Context, type Effect } from "effect"

/** Feed posts in groups since a moment: how many in all, and per group. */
export interface GroupPostCounts {
  readonly total: number
  readonly byGroup: ReadonlyMap<number, number>
}

/**
 * The groups' port to the feed (the feed reads groups, so groups never import the feed): feed posts written in
 * groups, for the admin analytics and recommendations. The feed fills it (`feed/GroupFeedActivityLive.ts`); the
 * composition root provides it.
 */
export class GroupFeedActivity extends Context.Tag("GroupFeedActivity")<GroupFeedActivity, {
  /** Live (not deleted) posts in groups created at or after `since`; only in `groupIds` when given. */
  readonly postsSince: (
    since: Date,
    groupIds?: ReadonlyArray<number>
  ) => Effect.Effect<GroupPostCounts, never, CurrentTenant>
}>() {}
