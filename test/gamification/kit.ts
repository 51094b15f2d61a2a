import { SqlClient } from "@effect/sql"
import type { GamificationSummary } from "@timebank/domain"
import { GAMIFICATION_SUBSCRIBER } from "@timebank/server"
import { Effect, Schedule } from "effect"
import { expectOk } from "../fixtures/client.js"
import type { Actor } from "../fixtures/community.js"

/** The caller's points, level and badges (`GET /api/v2/users/me/gamification`). */
export const mine = (who: Actor) => Effect.map(expectOk(who.client.gamification.me()), (res) => res.data)

/**
 * Points and badges arrive after the change that earned them committed (the outbox subscriber): waits until the
 * caller's summary satisfies `until`, or fails the test with the last one seen.
 */
export const waitForSummary = (who: Actor, until: (summary: GamificationSummary) => boolean) =>
  mine(who).pipe(
    Effect.filterOrFail(until, () => "not yet"),
    Effect.retry(Schedule.spaced("50 millis").pipe(Schedule.upTo("15 seconds"))),
    Effect.orElse(() =>
      Effect.flatMap(mine(who), (last) => Effect.die(new Error(`never arrived; last: ${JSON.stringify(last)}`)))
    )
  )

/** Waits until the gamification subscriber has handled every outbox event written so far. */
export const gamificationSettled = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql<{ pending: boolean }>`
    SELECT EXISTS (
      SELECT 1 FROM outbox_events e
      LEFT JOIN outbox_cursors c ON c.subscriber = ${GAMIFICATION_SUBSCRIBER}
      WHERE c.subscriber IS NULL OR (e.tx_id, e.id) > (c.tx_id, c.event_id)
    ) AS pending`.pipe(
    Effect.orDie,
    Effect.filterOrFail((rows) => rows[0]?.pending === false, () => "pending"),
    Effect.retry(Schedule.spaced("50 millis").pipe(Schedule.upTo("15 seconds"))),
    Effect.orDie,
    Effect.asVoid
  ))

/** The XP ledger rows of a member, oldest first. */
export const xpRows = (who: { readonly id: number }) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ event_type: string; points: number; multiplier: number; source_key: string }>`
      SELECT event_type, points, multiplier, source_key FROM gamification_xp WHERE user_id = ${who.id}
      ORDER BY id`
  ).pipe(Effect.orDie)

/** `BadgeAwarded` events written for a member. */
export const awardEvents = (who: { readonly id: number }) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ payload: { badge_key: string; source: string } }>`
      SELECT payload FROM outbox_events
      WHERE event_type = 'BadgeAwarded' AND (payload->>'user_id')::bigint = ${who.id} ORDER BY id`).pipe(
      Effect.orDie,
      Effect.map((rows) => rows.map((r) => r.payload))
    )

export const keysOf = (summary: { readonly badges: ReadonlyArray<{ readonly key: string }> }) =>
  summary.badges.map((b) => b.key).sort()
