import type { AdminMatch, CurrentTenant, Match } from "@timebank/domain"
import { DateTime, Effect } from "effect"
import { UserSummaries } from "../identity/UserSummaries.js"
import type { MatchRow } from "./MatchRepo.js"

/** A stored match as its member sees it. */
export const toMatch = (row: MatchRow): Match => ({
  id: row.id,
  user_id: row.user_id,
  target_type: row.target_type,
  target_id: row.target_id,
  score: row.score,
  reasons: row.reasons,
  status: row.status,
  target: { title: row.title, location: row.location, category_id: row.category_id },
  computed_at: DateTime.unsafeFromDate(row.computed_at)
})

/** Admins' view of matches: the member of each, read once for the whole page. */
export class MatchViews extends Effect.Service<MatchViews>()("MatchViews", {
  dependencies: [UserSummaries.Default],
  effect: Effect.gen(function*() {
    const users = yield* UserSummaries

    const admin = (rows: ReadonlyArray<MatchRow>): Effect.Effect<ReadonlyArray<AdminMatch>, never, CurrentTenant> =>
      Effect.map(users.byIds(rows.map((r) => r.user_id)), (summaries) =>
        rows.map((row): AdminMatch => ({
          ...toMatch(row),
          user: summaries.get(row.user_id) ?? null,
          decided_by: row.decided_by,
          decided_at: row.decided_at === null ? null : DateTime.unsafeFromDate(row.decided_at),
          note: row.note,
          created_at: DateTime.unsafeFromDate(row.created_at)
        })))

    return { admin } as const
  })
}) {}
