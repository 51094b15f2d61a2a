import { Effect, Schema } from "effect"
import { Audiences } from "../../identity/Audiences.js"
import { pgArray } from "../../platform/SqlArrays.js"
import { DbInt, decodeRows } from "../../platform/SqlRows.js"
import { TenantSql } from "../../platform/TenantSql.js"

/** The spec's push duplicate window (Limits: "bell and push duplicate window"). */
export const PUSH_DEDUPE_SECONDS = 60

/** One push to make: a fresh bell and one of its recipient's subscriptions. */
export const PushRow = Schema.Struct({
  notification_id: DbInt,
  user_id: DbInt,
  type: Schema.String,
  title: Schema.String,
  message: Schema.String,
  link: Schema.NullOr(Schema.String),
  subscription_id: DbInt,
  kind: Schema.Literal("web", "fcm", "apns"),
  endpoint: Schema.String,
  p256dh: Schema.NullOr(Schema.String),
  auth: Schema.NullOr(Schema.String)
})
export type PushRow = typeof PushRow.Type

const pushRows = decodeRows(PushRow)

/** What push reads and records of fresh bells in the current tenant. */
export class PushFanoutRepo extends Effect.Service<PushFanoutRepo>()("PushFanoutRepo", {
  dependencies: [TenantSql.Default, Audiences.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const audiences = yield* Audiences
    const { sql } = db

    /**
     * Claims the pushes of these bells in one statement and returns them, one row per (bell, subscription): bells
     * of reachable members with `push_enabled` not switched off and at least one subscription, one per (member,
     * group_key) in the batch, none whose (member, group_key) was pushed in the last 60 seconds. The claim is
     * written to `push_log` by the same statement; a per-tenant transaction lock keeps two runners (or two batches)
     * from both claiming one group in the same instant.
     */
    const claim = (notificationIds: ReadonlyArray<number>, userIds: ReadonlyArray<number>) =>
      db.transaction(Effect.gen(function*() {
        const tenantId = yield* db.tenantId
        const members = yield* audiences.members(userIds)
        yield* sql`SELECT pg_advisory_xact_lock(hashtextextended(${`push_log:${tenantId}`}, 0))`
        // The log only matters inside the window: these members' older rows go as they get new ones.
        yield* sql`
          DELETE FROM push_log
          WHERE tenant_id = ${tenantId} AND user_id = ANY(${pgArray(userIds)}::bigint[])
            AND sent_at < now() - make_interval(secs => ${PUSH_DEDUPE_SECONDS})`
        return yield* sql`
          WITH audience AS (${members}),
          fresh AS (
            SELECT DISTINCT ON (n.user_id, n.group_key)
                   n.id, n.user_id, n.type, n.title, n.message, n.link, n.group_key
            FROM notifications n
            JOIN audience a ON a.user_id = n.user_id
            WHERE n.tenant_id = ${tenantId}
              AND n.id = ANY(${pgArray(notificationIds)}::bigint[])
              AND (a.preferences -> 'push_enabled') IS DISTINCT FROM 'false'::jsonb
              AND EXISTS (
                SELECT 1 FROM push_subscriptions s WHERE s.tenant_id = ${tenantId} AND s.user_id = n.user_id)
              AND NOT EXISTS (
                SELECT 1 FROM push_log l
                WHERE l.tenant_id = ${tenantId} AND l.user_id = n.user_id AND l.group_key = n.group_key
                  AND l.sent_at > now() - make_interval(secs => ${PUSH_DEDUPE_SECONDS}))
            ORDER BY n.user_id, n.group_key, n.id DESC
          ),
          claimed AS (
            INSERT INTO push_log (tenant_id, user_id, group_key)
            SELECT ${tenantId}, user_id, group_key FROM fresh
          )
          SELECT f.id AS notification_id, f.user_id, f.type, f.title, f.message, f.link,
                 s.id AS subscription_id, s.kind, s.endpoint, s.p256dh, s.auth
          FROM fresh f
          JOIN push_subscriptions s ON s.tenant_id = ${tenantId} AND s.user_id = f.user_id
          ORDER BY s.id`.pipe(pushRows)
      }))

    return { claim } as const
  })
}) {}
