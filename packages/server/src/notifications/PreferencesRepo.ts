import { type CurrentTenant, type NotificationFrequency, NotificationSetting, UserId } from "@timebank/domain"
import { Effect, Schema } from "effect"
import { DbDate, dbId, DbInt, decodeRows } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"

const SettingRow = Schema.Struct({
  context_type: Schema.Literal("global", "group", "thread"),
  context_id: DbInt,
  frequency: Schema.Literal("instant", "daily", "monthly", "off")
})
const settingRows = decodeRows(SettingRow)

/** `context_id` 0 is how the table says "no context" (global). */
const settingOf = (row: typeof SettingRow.Type): NotificationSetting =>
  NotificationSetting.make({
    context_type: row.context_type,
    context_id: row.context_type === "global" ? null : row.context_id,
    frequency: row.frequency
  })

const MutedRow = Schema.Struct({ muted_user_id: dbId(UserId), created_at: DbDate })
const mutedRows = decodeRows(MutedRow)

/** A member's digest frequencies (per context) and the members they muted. */
export class PreferencesRepo extends Effect.Service<PreferencesRepo>()("PreferencesRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db

    return {
      settings: (userId: number): Effect.Effect<ReadonlyArray<NotificationSetting>, never, CurrentTenant> =>
        db.query((tenantId) =>
          sql`SELECT context_type, context_id, frequency FROM notification_settings
              WHERE tenant_id = ${tenantId} AND user_id = ${userId}
              ORDER BY context_type, context_id`.pipe(settingRows, Effect.map((rows) => rows.map(settingOf)))
        ),

      saveSetting: (userId: number, setting: NotificationSetting) =>
        db.query((tenantId) =>
          sql`INSERT INTO notification_settings (tenant_id, user_id, context_type, context_id, frequency)
              VALUES (${tenantId}, ${userId}, ${setting.context_type}, ${setting.context_id ?? 0}, ${setting.frequency})
              ON CONFLICT (tenant_id, user_id, context_type, context_id)
              DO UPDATE SET frequency = EXCLUDED.frequency, updated_at = now()`.pipe(Effect.as(setting))
        ),

      /** Sets the member's global frequency (an unsubscribe from digests sets `off`). */
      saveGlobalFrequency: (userId: number, frequency: NotificationFrequency) =>
        db.query((tenantId) =>
          sql`INSERT INTO notification_settings (tenant_id, user_id, context_type, context_id, frequency)
              VALUES (${tenantId}, ${userId}, 'global', 0, ${frequency})
              ON CONFLICT (tenant_id, user_id, context_type, context_id)
              DO UPDATE SET frequency = EXCLUDED.frequency, updated_at = now()`.pipe(Effect.asVoid)
        ),

      mute: (userId: number, mutedUserId: number) =>
        db.query((tenantId) =>
          sql`INSERT INTO user_mutes (tenant_id, user_id, muted_user_id)
              VALUES (${tenantId}, ${userId}, ${mutedUserId}) ON CONFLICT DO NOTHING`.pipe(Effect.asVoid)
        ),

      unmute: (userId: number, mutedUserId: number) =>
        db.query((tenantId) =>
          sql`DELETE FROM user_mutes
              WHERE tenant_id = ${tenantId} AND user_id = ${userId} AND muted_user_id = ${mutedUserId}`.pipe(
            Effect.asVoid
          )
        ),

      /** Newest first. */
      muted: (userId: number) =>
        db.query((tenantId) =>
          sql`SELECT muted_user_id, created_at FROM user_mutes
              WHERE tenant_id = ${tenantId} AND user_id = ${userId}
              ORDER BY created_at DESC, muted_user_id DESC`.pipe(mutedRows)
        )
    } as const
  })
}) {}
