import {
  type CurrentTenant,
  GroupedNotification,
  Notification,
  NOTIFICATION_CATEGORIES,
  type UserSummary
} from "@timebank/domain"
import { DateTime, Effect } from "effect"
import { UserSummaries } from "../identity/UserSummaries.js"
import type { BellRow } from "./BellRepo.js"

const CATEGORY_SET: ReadonlySet<string> = new Set(NOTIFICATION_CATEGORIES)
/** Actors a grouped item names; the rest are `remaining_count` (decisions D12a). */
const ACTORS_SHOWN = 3

const itemOf = (row: BellRow, actors: ReadonlyMap<number, UserSummary>) =>
  Notification.make({
    id: row.id,
    type: row.type,
    category: CATEGORY_SET.has(row.category) ? row.category as Notification["category"] : "other",
    title: row.title,
    body: row.message,
    message: row.message,
    link: row.link,
    is_read: row.is_read,
    read_at: row.read_at === null ? null : DateTime.unsafeFromDate(row.read_at),
    actor: row.actor_id === null ? null : actors.get(row.actor_id) ?? null,
    created_at: DateTime.unsafeFromDate(row.created_at)
  })

/** Folds rows (newest first) by `group_key`, keeping the groups in the order of their newest item. */
const groupsOf = (rows: ReadonlyArray<BellRow>): ReadonlyArray<ReadonlyArray<BellRow>> => {
  const groups = new Map<string, Array<BellRow>>()
  for (const row of rows) {
    const group = groups.get(row.group_key)
    if (group === undefined) groups.set(row.group_key, [row])
    else group.push(row)
  }
  return [...groups.values()]
}

/** Distinct actors of a group, most recent first. */
const actorIdsOf = (group: ReadonlyArray<BellRow>): ReadonlyArray<number> => [
  ...new Set(group.flatMap((row) => row.actor_id === null ? [] : [row.actor_id]))
]

const groupedOf = (group: ReadonlyArray<BellRow>, actors: ReadonlyMap<number, UserSummary>) => {
  const latest = group[0]!
  const actorIds = actorIdsOf(group)
  return GroupedNotification.make({
    ...itemOf(latest, actors),
    is_grouped: group.length > 1,
    group_key: latest.group_key,
    group_count: group.length,
    actors: actorIds.slice(0, ACTORS_SHOWN).flatMap((id) => {
      const actor = actors.get(id)
      return actor === undefined ? [] : [actor]
    }),
    remaining_count: Math.max(0, actorIds.length - ACTORS_SHOWN),
    all_read: group.every((row) => row.is_read),
    latest_at: DateTime.unsafeFromDate(latest.created_at),
    notification_ids: group.map((row) => row.id)
  })
}

/** Bell rows as the API shows them: the actors of a whole page load in one query. */
export class BellViews extends Effect.Service<BellViews>()("BellViews", {
  dependencies: [UserSummaries.Default],
  effect: Effect.gen(function*() {
    const users = yield* UserSummaries

    const actorsOf = (
      rows: ReadonlyArray<BellRow>
    ): Effect.Effect<ReadonlyMap<number, UserSummary>, never, CurrentTenant> =>
      users.byIds(rows.flatMap((row) => row.actor_id === null ? [] : [row.actor_id]))

    const items = (rows: ReadonlyArray<BellRow>) =>
      Effect.map(actorsOf(rows), (actors) => rows.map((row) => itemOf(row, actors)))

    const item = (row: BellRow) => Effect.map(items([row]), (list) => list[0]!)

    const grouped = (rows: ReadonlyArray<BellRow>) =>
      Effect.map(actorsOf(rows), (actors) => groupsOf(rows).map((group) => groupedOf(group, actors)))

    return { items, item, grouped } as const
  })
}) {}
