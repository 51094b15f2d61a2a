import { type CurrentTenant, NotificationPreferenceDefaults, NotificationPreferences } from "@timebank/domain"
import { Effect, Schema } from "effect"
import { Audiences } from "../../identity/Audiences.js"
import { UserSummaries } from "../../identity/UserSummaries.js"
import { DbInt, decodeRows } from "../../platform/SqlRows.js"
import { TenantSql } from "../../platform/TenantSql.js"

const RecipientRow = Schema.Struct({
  user_id: DbInt,
  email: Schema.String,
  language: Schema.NullOr(Schema.String),
  preferences: Schema.NullOr(Schema.partialWith(NotificationPreferences, { exact: true }))
})

/** A member mail can reach: address, preferred language (as stored), preferences with defaults, first name. */
export interface MailMember {
  readonly userId: number
  readonly email: string
  readonly language: string | null
  readonly preferences: NotificationPreferences
  readonly firstName: string | null
}

/** Who the current community's members are for mail: read through identity's published sets (never its table). */
export class MailRecipients extends Effect.Service<MailRecipients>()("MailRecipients", {
  dependencies: [Audiences.Default, UserSummaries.Default, TenantSql.Default],
  effect: Effect.gen(function*() {
    const audiences = yield* Audiences
    const summaries = yield* UserSummaries
    const db = yield* TenantSql
    const { sql } = db

    /** The reachable members among `ids` (active, not erased), by id. */
    const members = (
      ids: ReadonlyArray<number>
    ): Effect.Effect<ReadonlyMap<number, MailMember>, never, CurrentTenant> =>
      ids.length === 0 ? Effect.succeed(new Map()) : Effect.gen(function*() {
        const set = yield* audiences.members(ids)
        const rows = yield* db.query(() =>
          sql`SELECT user_id, email, language, preferences FROM (${set}) m`.pipe(decodeRows(RecipientRow))
        )
        const names = yield* summaries.byIds(rows.map((row) => row.user_id))
        return new Map(rows.map((row): readonly [number, MailMember] => [row.user_id, {
          userId: row.user_id,
          email: row.email,
          language: row.language,
          preferences: { ...NotificationPreferenceDefaults, ...row.preferences },
          firstName: names.get(row.user_id)?.first_name ?? null
        }]))
      }).pipe(Effect.withSpan("MailRecipients.members"))

    return { members } as const
  })
}) {}
