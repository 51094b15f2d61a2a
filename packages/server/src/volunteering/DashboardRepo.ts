import { type ApplicationStatus, UserId } from "@timebank/domain"
import { Effect, Schema } from "effect"
import { DbDate, dbId, DbInt, DbNumeric, decodeRows, decodeSingle } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"
import { applicationRows } from "./ApplicationRepo.js"
import { hourLogRows } from "./HourLogRepo.js"
import type { PageQuery } from "./VolunteeringPage.js"

/** The owner's totals of one organisation. */
export const DashboardTotalsRow = Schema.Struct({
  volunteers: DbInt,
  pending_applications: DbInt,
  pending_hours: DbNumeric,
  approved_hours: DbNumeric,
  active_opportunities: DbInt
})
export type DashboardTotalsRow = typeof DashboardTotalsRow.Type

/** One approved volunteer with their totals for the organisation. */
export const VolunteerRow = Schema.Struct({
  user_id: dbId(UserId),
  first_approved_at: DbDate,
  application_count: DbInt,
  total_hours: DbNumeric
})
export type VolunteerRow = typeof VolunteerRow.Type

const NO_CURSOR = Number.MAX_SAFE_INTEGER

/**
 * The reads behind an organisation's dashboards. Each answer is one statement: totals come from scalar subqueries
 * side by side, lists fetch one more row than the page to know whether there is more.
 */
export class DashboardRepo extends Effect.Service<DashboardRepo>()("DashboardRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db

    const pendingHoursOf = (tenantId: number, organisationId: number) =>
      sql`
        SELECT coalesce(sum(hours), 0) FROM vol_hours
        WHERE tenant_id = ${tenantId} AND organisation_id = ${organisationId} AND status = 'pending'`

    return {
      /**
       * Every count of the stats dashboard in ONE statement (indexes `vol_applications_organisation`,
       * `vol_hours_organisation`, `vol_opportunities_organisation`).
       */
      totals: (organisationId: number) =>
        db.query((tenantId) =>
          sql`
            SELECT
              (SELECT count(DISTINCT user_id)::int FROM vol_applications
               WHERE tenant_id = ${tenantId} AND organisation_id = ${organisationId} AND status = 'approved')
                AS volunteers,
              (SELECT count(*)::int FROM vol_applications
               WHERE tenant_id = ${tenantId} AND organisation_id = ${organisationId} AND status = 'pending')
                AS pending_applications,
              (${pendingHoursOf(tenantId, organisationId)}) AS pending_hours,
              (SELECT coalesce(sum(hours), 0) FROM vol_hours
               WHERE tenant_id = ${tenantId} AND organisation_id = ${organisationId} AND status = 'approved')
                AS approved_hours,
              (SELECT count(*)::int FROM vol_opportunities
               WHERE tenant_id = ${tenantId} AND organisation_id = ${organisationId} AND status = 'open')
                AS active_opportunities`.pipe(decodeSingle(DashboardTotalsRow))
        ),

      /** Sum of the organisation's hours awaiting review. */
      pendingHours: (organisationId: number) =>
        db.query((tenantId) =>
          sql`SELECT (${pendingHoursOf(tenantId, organisationId)}) AS total`.pipe(
            decodeSingle(Schema.Struct({ total: DbNumeric })),
            Effect.map((row) => row.total)
          )
        ),

      /**
       * Approved volunteers, highest user id first (the cursor is the last user id), with their totals: the page
       * walks the approved part of `vol_applications_organisation` backwards; each member's application count and
       * approved hours are looked up for the page's members only.
       */
      volunteers: (organisationId: number, q: PageQuery) =>
        db.query((tenantId) =>
          sql`
            WITH page AS (
              SELECT user_id, min(coalesce(reviewed_at, created_at)) AS first_approved_at
              FROM vol_applications
              WHERE tenant_id = ${tenantId} AND organisation_id = ${organisationId} AND status = 'approved'
                AND user_id < ${q.before ?? NO_CURSOR}
              GROUP BY user_id
              ORDER BY user_id DESC
              LIMIT ${q.limit}
            )
            SELECT p.user_id, p.first_approved_at,
              (SELECT count(*)::int FROM vol_applications a
               WHERE a.tenant_id = ${tenantId} AND a.organisation_id = ${organisationId}
                 AND a.status IN ('pending', 'approved', 'declined') AND a.user_id = p.user_id)
                AS application_count,
              (SELECT coalesce(sum(h.hours), 0) FROM vol_hours h
               WHERE h.tenant_id = ${tenantId} AND h.user_id = p.user_id
                 AND h.organisation_id = ${organisationId} AND h.status = 'approved')
                AS total_hours
            FROM page p
            ORDER BY p.user_id DESC`.pipe(decodeRows(VolunteerRow))
        ),

      /**
       * Applications to the organisation, newest first (index `vol_applications_organisation_id`; with a status,
       * the same index filtered).
       */
      applications: (organisationId: number, q: PageQuery & { readonly status?: ApplicationStatus | undefined }) =>
        db.query((tenantId) => {
          const conditions = [
            sql`tenant_id = ${tenantId}`,
            sql`organisation_id = ${organisationId}`,
            sql`id < ${q.before ?? NO_CURSOR}`
          ]
          if (q.status !== undefined) conditions.push(sql`status = ${q.status}`)
          return sql`
            SELECT * FROM vol_applications WHERE ${sql.and(conditions)}
            ORDER BY id DESC LIMIT ${q.limit}`.pipe(applicationRows)
        }),

      /** Hours awaiting review, newest first (index `vol_hours_organisation`). */
      pendingHourLogs: (organisationId: number, q: PageQuery) =>
        db.query((tenantId) =>
          sql`
            SELECT * FROM vol_hours
            WHERE tenant_id = ${tenantId} AND organisation_id = ${organisationId} AND status = 'pending'
              AND id < ${q.before ?? NO_CURSOR}
            ORDER BY id DESC LIMIT ${q.limit}`.pipe(hourLogRows)
        )
    } as const
  })
}) {}
