import type { CurrentTenant } from "@timebank/domain"
import { Effect, Schema, type Stream } from "effect"
import { pgArray } from "../platform/SqlArrays.js"
import { DbDate, DbInt, decodeRows, decodeSingle } from "../platform/SqlRows.js"
import { streamRows, tenantStream } from "../platform/SqlStreams.js"
import { TenantSql } from "../platform/TenantSql.js"

/** Members (not erased) who had joined by a moment, by their status today. */
export interface MemberFigures {
  readonly total: number
  readonly active: number
  readonly pending: number
  readonly suspended: number
  readonly banned: number
}

const Figures = Schema.Struct({ total: DbInt, active: DbInt, pending: DbInt, suspended: DbInt, banned: DbInt })
const EmailRow = Schema.Struct({ id: DbInt, email: Schema.String })

/** One member as the members export writes it (balance comes from the ledger). */
export const MemberExportRow = Schema.Struct({
  id: DbInt,
  first_name: Schema.String,
  last_name: Schema.String,
  email: Schema.String,
  role: Schema.String,
  status: Schema.String,
  created_at: DbDate
})
export type MemberExportRow = typeof MemberExportRow.Type

/** What funder reports read of identity (decisions D17 "Funder reports"), over `users_tenant_created`. */
export class MemberReports extends Effect.Service<MemberReports>()("MemberReports", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db

    /** Members not erased whose account was created before `end`, by status. */
    const figures = (end: Date): Effect.Effect<MemberFigures, never, CurrentTenant> =>
      db.query((tenantId) =>
        sql`SELECT count(*)::int AS total,
                   count(*) FILTER (WHERE status = 'active')::int AS active,
                   count(*) FILTER (WHERE status = 'pending')::int AS pending,
                   count(*) FILTER (WHERE status = 'suspended')::int AS suspended,
                   count(*) FILTER (WHERE status = 'banned')::int AS banned
            FROM users WHERE tenant_id = ${tenantId} AND created_at < ${end} AND deleted_at IS NULL`.pipe(
          decodeSingle(Figures)
        )
      )

    /** Account e-mails by user id, one query; erased or unknown ids are absent. */
    const emails = (
      userIds: ReadonlyArray<number>
    ): Effect.Effect<ReadonlyMap<number, string>, never, CurrentTenant> =>
      userIds.length === 0
        ? Effect.succeed(new Map())
        : db.query((tenantId) =>
          sql`SELECT id, email FROM users
              WHERE tenant_id = ${tenantId} AND id = ANY(${pgArray(userIds)}::bigint[]) AND deleted_at IS NULL`.pipe(
            decodeRows(EmailRow),
            Effect.map((rows) => new Map(rows.map((r) => [r.id, r.email])))
          )
        )

    const memberRows = streamRows(MemberExportRow)

    /** The members `figures(end)` counts, oldest account first, through a cursor. */
    const members = (end: Date): Stream.Stream<MemberExportRow, never, CurrentTenant> =>
      tenantStream((tenantId) =>
        memberRows(sql`
          SELECT id, first_name, last_name, email, role, status, created_at FROM users
          WHERE tenant_id = ${tenantId} AND created_at < ${end} AND deleted_at IS NULL
          ORDER BY created_at, id`)
      )

    return { figures, emails, members } as const
  })
}) {}
