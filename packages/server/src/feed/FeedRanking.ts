import { CurrentTenant, type CursorMeta, cursorPage, encodeCursor, type FeedAlgorithmConfig } from "@timebank/domain"
import { Clock, Effect } from "effect"
import { ConnectionDirectory } from "../connections/ConnectionDirectory.js"
import { RankingHealth } from "../tenancy/config/RankingHealth.js"
import { TenantConfig } from "../tenancy/config/TenantConfig.js"
import type { FeedPostRow } from "./FeedPostRepo.js"

/** A post's recency counts half as much after this many hours. */
const RECENCY_HALF_LIFE_HOURS = 24
const HOUR_MILLIS = 3_600_000

/** What the score of a page's posts needs beside the posts. */
export interface RankingContext {
  readonly now: number
  /** The viewer's connections among the page's authors. */
  readonly connected: ReadonlySet<number>
}

const engagementOf = (row: FeedPostRow) => row.like_count + row.comment_count

/** Whether the weights order the feed by recency alone: then the id order (newest first) is the ranking. */
export const isRecencyOnly = (weights: FeedAlgorithmConfig) =>
  weights.engagement_weight === 0 && weights.connection_weight === 0

/**
 * Orders one page of posts by score (decisions D17 `feed-algorithm`): recency (halving every day), engagement
 * (likes and comments, on a log scale relative to the page's most engaged post) and whether the viewer is connected
 * to the author, each 0..1 times its weight. Ties keep the newest first.
 */
export const rankPage = (
  rows: ReadonlyArray<FeedPostRow>,
  weights: FeedAlgorithmConfig,
  context: RankingContext
): ReadonlyArray<FeedPostRow> => {
  if (isRecencyOnly(weights)) return rows
  const most = Math.max(0, ...rows.map(engagementOf))
  const score = (row: FeedPostRow) => {
    const ageHours = Math.max(0, context.now - row.created_at.getTime()) / HOUR_MILLIS
    const recency = 0.5 ** (ageHours / RECENCY_HALF_LIFE_HOURS)
    const engagement = most === 0 ? 0 : Math.log1p(engagementOf(row)) / Math.log1p(most)
    const connection = context.connected.has(row.author_id) ? 1 : 0
    return weights.recency_weight * recency + weights.engagement_weight * engagement +
      weights.connection_weight * connection
  }
  const scored = rows.map((row) => ({ row, score: score(row) }))
  return scored.sort((a, b) => b.score - a.score || b.row.id - a.row.id).map((s) => s.row)
}

/**
 * The feed's order by the community's `feed_algorithm` weights. A page is ranked within itself: it holds the next
 * posts by id after the cursor, as before, and only their order changes — the cursor stays the oldest id of the
 * page, so paging never repeats or skips a post. With the default weights (recency only) the order is the id order.
 */
export class FeedRanking extends Effect.Service<FeedRanking>()("FeedRanking", {
  dependencies: [ConnectionDirectory.Default],
  effect: Effect.gen(function*() {
    const connections = yield* ConnectionDirectory
    // One per process (ServicesLive): the admin routes write what is read here.
    const config = yield* TenantConfig
    const health = yield* RankingHealth

    /**
     * A cursor page of the feed for `viewerId`: `fetch` reads one more than `perPage` posts in id order (newest
     * first); the page keeps the first `perPage` and is ranked. Measured as the tenant's `feed` ranking.
     */
    const page = <E, R>(fetch: Effect.Effect<ReadonlyArray<FeedPostRow>, E, R>, perPage: number, viewerId: number) =>
      Effect.flatMap(CurrentTenant, (tenant) =>
        health.measure(
          tenant.id,
          "feed",
          Effect.gen(function*() {
            const weights = yield* config.get(tenant.id, "feed_algorithm")
            const window = cursorPage(yield* fetch, perPage, (last) => encodeCursor(last.id))
            if (isRecencyOnly(weights)) return window
            const connected = weights.connection_weight > 0
              ? yield* connections.connectedAmong(viewerId, window.data.map((r) => r.author_id))
              : new Set<number>()
            const data = rankPage(window.data, weights, { now: yield* Clock.currentTimeMillis, connected })
            return { data, meta: window.meta } satisfies { data: ReadonlyArray<FeedPostRow>; meta: CursorMeta }
          })
        ))

    return { page } as const
  })
}) {}
