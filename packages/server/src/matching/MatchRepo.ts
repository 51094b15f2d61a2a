import { type ApprovalStatus, MatchId, MatchStatus, MatchTargetType, UserId } from "@timebank/domain"
import { Effect, Schema } from "effect"
import { pgArray } from "../platform/SqlArrays.js"
import { DbDate, dbId, DbInt, DbNumeric, decodeFirst, decodeRows, decodeSingle } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"

/** A row of `matching_matches`. */
export const MatchRow = Schema.Struct({
  id: dbId(MatchId),
  user_id: dbId(UserId),
  target_type: MatchTargetType,
  target_id: DbInt,
  score: DbNumeric,
  reasons: Schema.Array(Schema.String),
  title: Schema.String,
  location: Schema.NullOr(Schema.String),
  category_id: Schema.NullOr(DbInt),
  status: MatchStatus,
  computed_at: DbDate,
  decided_by: Schema.NullOr(dbId(UserId)),
  decided_at: Schema.NullOr(DbDate),
  note: Schema.NullOr(Schema.String),
  created_at: DbDate
})
export type MatchRow = typeof MatchRow.Type

/** A match as a computation writes it; an existing row keeps its status (and a rejected one is not touched). */
export interface MatchWrite {
  readonly targetType: MatchTargetType
  readonly targetId: number
  readonly score: number
  readonly reasons: ReadonlyArray<string>
  readonly title: string
  readonly location: string | null
  readonly categoryId: number | null
  /** The status of a new row. */
  readonly status: "visible" | "pending"
}

const ComputationRow = Schema.Struct({ computed_at: DbDate, config_key: Schema.String })
const KeyRow = Schema.Struct({ id: dbId(MatchId), target_type: MatchTargetType, target_id: DbInt, status: MatchStatus })
export type MatchKey = typeof KeyRow.Type
const WrittenRow = Schema.Struct({ id: dbId(MatchId), status: MatchStatus, inserted: Schema.Boolean })
const StatusCount = Schema.Struct({ status: MatchStatus, n: DbInt, score_sum: DbNumeric })
const Count = Schema.Struct({ n: DbInt })

const rows = decodeRows(MatchRow)
const firstRow = decodeFirst(MatchRow)

const APPROVAL_STATUSES: ReadonlyArray<ApprovalStatus> = ["pending", "approved", "rejected"]

export interface ApprovalQuery {
  readonly status?: ApprovalStatus | undefined
  readonly userId?: number | undefined
  readonly page: number
  readonly perPage: number
}

/** Computed matches and when each member's were computed (`matching_matches`, `matching_computations`). */
export class MatchRepo extends Effect.Service<MatchRepo>()("MatchRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db

    const computationOf = (userId: number) =>
      db.query((tenantId) =>
        sql`SELECT computed_at, config_key FROM matching_computations
            WHERE tenant_id = ${tenantId} AND user_id = ${userId}`.pipe(decodeFirst(ComputationRow))
      )

    const markComputed = (userId: number, configKey: string, at: Date) =>
      db.query((tenantId) =>
        sql`INSERT INTO matching_computations (tenant_id, user_id, computed_at, config_key)
            VALUES (${tenantId}, ${userId}, ${at}, ${configKey})
            ON CONFLICT (tenant_id, user_id)
            DO UPDATE SET computed_at = EXCLUDED.computed_at, config_key = EXCLUDED.config_key`
      ).pipe(Effect.asVoid)

    /** The member's matches are stale: the next list recomputes them. */
    const forgetComputation = (userId: number) =>
      db.query((tenantId) =>
        sql`DELETE FROM matching_computations WHERE tenant_id = ${tenantId} AND user_id = ${userId}`
      ).pipe(Effect.asVoid)

    /** Serialises computations of one member (two lists at once compute once, one after the other). */
    const lockMember = (userId: number) =>
      db.query((tenantId) =>
        sql`SELECT pg_advisory_xact_lock(hashtextextended(${`matching:${tenantId}:${userId}`}, 0))`
      ).pipe(Effect.asVoid)

    const keysOf = (userId: number) =>
      db.query((tenantId) =>
        sql`SELECT id, target_type, target_id, status FROM matching_matches
            WHERE tenant_id = ${tenantId} AND user_id = ${userId}`.pipe(decodeRows(KeyRow))
      )

    /** Inserts new matches and updates known ones (not rejected ones) in one statement. */
    const upsertMany = (userId: number, writes: ReadonlyArray<MatchWrite>, at: Date) =>
      writes.length === 0 ?
        Effect.succeed([]) :
        db.query((tenantId) =>
          sql`INSERT INTO matching_matches ${
            sql.insert(writes.map((w) => ({
              tenant_id: tenantId,
              user_id: userId,
              target_type: w.targetType,
              target_id: w.targetId,
              score: w.score,
              reasons: JSON.stringify(w.reasons),
              title: w.title,
              location: w.location,
              category_id: w.categoryId,
              status: w.status,
              computed_at: at
            })))
          }
            ON CONFLICT (tenant_id, user_id, target_type, target_id) DO UPDATE SET
              score = EXCLUDED.score, reasons = EXCLUDED.reasons, title = EXCLUDED.title,
              location = EXCLUDED.location, category_id = EXCLUDED.category_id, computed_at = EXCLUDED.computed_at
            WHERE matching_matches.status <> 'rejected'
            RETURNING id, status, (xmax = 0) AS inserted`.pipe(decodeRows(WrittenRow))
        )

    const deleteIds = (ids: ReadonlyArray<number>) =>
      ids.length === 0 ?
        Effect.void :
        db.query((tenantId) =>
          sql`DELETE FROM matching_matches WHERE tenant_id = ${tenantId} AND id = ANY(${pgArray(ids)}::bigint[])`
        ).pipe(Effect.asVoid)

    /** What the member sees: visible and approved matches, best first. */
    const shownTo = (userId: number, targetType: MatchTargetType | undefined, limit: number) =>
      db.query((tenantId) =>
        sql`SELECT * FROM matching_matches
            WHERE tenant_id = ${tenantId} AND user_id = ${userId} AND status IN ('visible', 'approved')
              ${targetType === undefined ? sql`` : sql`AND target_type = ${targetType}`}
            ORDER BY score DESC, id LIMIT ${limit}`.pipe(rows)
      )

    const countShownTo = (userId: number, targetType: MatchTargetType | undefined) =>
      db.query((tenantId) =>
        sql`SELECT count(*)::int AS n FROM matching_matches
            WHERE tenant_id = ${tenantId} AND user_id = ${userId} AND status IN ('visible', 'approved')
              ${targetType === undefined ? sql`` : sql`AND target_type = ${targetType}`}`.pipe(decodeSingle(Count))
      ).pipe(Effect.map((r) => r.n))

    const approvalFilter = (tenantId: number, q: Pick<ApprovalQuery, "status" | "userId">) =>
      sql.and([
        sql`tenant_id = ${tenantId}`,
        q.status === undefined ? sql`status IN ${sql.in(APPROVAL_STATUSES)}` : sql`status = ${q.status}`,
        ...(q.userId === undefined ? [] : [sql`user_id = ${q.userId}`])
      ])

    /** The approvals queue, newest first, and how many match the filter. */
    const approvals = (q: ApprovalQuery) =>
      db.query((tenantId) =>
        Effect.all({
          rows: sql`SELECT * FROM matching_matches WHERE ${approvalFilter(tenantId, q)}
                    ORDER BY id DESC LIMIT ${q.perPage} OFFSET ${(q.page - 1) * q.perPage}`.pipe(rows),
          total: sql`SELECT count(*)::int AS n FROM matching_matches WHERE ${approvalFilter(tenantId, q)}`.pipe(
            decodeSingle(Count),
            Effect.map((r) => r.n)
          )
        })
      )

    /** A match of the approvals queue (made while approval was required). */
    const findApproval = (id: number) =>
      db.query((tenantId) =>
        sql`SELECT * FROM matching_matches
            WHERE tenant_id = ${tenantId} AND id = ${id} AND status IN ${sql.in(APPROVAL_STATUSES)}`.pipe(firstRow)
      )

    /** Decides a pending match; none when it is not pending (any more). */
    const decide = (id: number, status: "approved" | "rejected", by: number, note: string | null) =>
      db.query((tenantId) =>
        sql`UPDATE matching_matches SET status = ${status}, decided_by = ${by}, decided_at = now(), note = ${note}
            WHERE tenant_id = ${tenantId} AND id = ${id} AND status = 'pending' RETURNING *`.pipe(firstRow)
      )

    /** Matches per status with the sum of their scores. */
    const statusCounts = db.query((tenantId) =>
      sql`SELECT status, count(*)::int AS n, coalesce(sum(score), 0) AS score_sum FROM matching_matches
          WHERE tenant_id = ${tenantId} GROUP BY status`.pipe(decodeRows(StatusCount))
    )

    const computedMembers = db.query((tenantId) =>
      sql`SELECT count(*)::int AS n FROM matching_computations WHERE tenant_id = ${tenantId}`.pipe(
        decodeSingle(Count),
        Effect.map((r) => r.n)
      )
    )

    /** Deletes the community's undecided matches and every member's computation; answers how many matches went. */
    const clearUndecided = db.query((tenantId) =>
      Effect.gen(function*() {
        const deleted = yield* sql`DELETE FROM matching_matches
                                   WHERE tenant_id = ${tenantId} AND status IN ('visible', 'pending')
                                   RETURNING id`
        yield* sql`DELETE FROM matching_computations WHERE tenant_id = ${tenantId}`
        return deleted.length
      })
    )

    return {
      computationOf,
      markComputed,
      forgetComputation,
      lockMember,
      keysOf,
      upsertMany,
      deleteIds,
      shownTo,
      countShownTo,
      approvals,
      findApproval,
      decide,
      statusCounts,
      computedMembers,
      clearUndecided
    } as const
  })
}) {}
