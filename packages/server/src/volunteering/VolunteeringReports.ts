import type { CurrentTenant } from "@timebank/domain"
import { Effect, Schema, type Stream } from "effect"
import { DbInt, DbNumeric, decodeRows } from "../platform/SqlRows.js"
import { streamRows, tenantStream } from "../platform/SqlStreams.js"
import { TenantSql } from "../platform/TenantSql.js"

/** Calendar days `from`..`to` (`YYYY-MM-DD`, both included): volunteering hours count by the day worked. */
export interface DayInterval {
  readonly from: string
  readonly to: string
}

const MonthHours = Schema.Struct({ month: Schema.String, hours: DbNumeric })
const OrganisationHours = Schema.Struct({ organisation_id: DbInt, name: Schema.String, hours: DbNumeric })
const IdRow = Schema.Struct({ id: DbInt })

/** One line of the hours export: an organisation's approved hours of one month. */
export const OrganisationMonthRow = Schema.Struct({
  organisation_id: DbInt,
  organisation: Schema.String,
  month: Schema.String,
  hours: DbNumeric
})
export type OrganisationMonthRow = typeof OrganisationMonthRow.Type

/** One line of the organisations export (the owner's e-mail comes from identity). */
export const OrganisationExportRow = Schema.Struct({
  id: DbInt,
  name: Schema.String,
  status: Schema.String,
  owner_id: DbInt,
  volunteers: DbInt,
  hours: DbNumeric
})
export type OrganisationExportRow = typeof OrganisationExportRow.Type

/**
 * What funder reports read of volunteering (decisions D17 "Funder reports"): approved hour logs of a day interval,
 * over `vol_hours_tenant_approved_date`; organisations' names in the same query as their hours.
 */
export class VolunteeringReports extends Effect.Service<VolunteeringReports>()("VolunteeringReports", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db
    const approvedIn = (days: DayInterval) =>
      sql`h.status = 'approved' AND h.date >= ${days.from}::date AND h.date <= ${days.to}::date`

    /** Approved hours per month (`YYYY-MM`) of the interval; months without hours are absent. */
    const hoursByMonth = (
      days: DayInterval
    ): Effect.Effect<ReadonlyArray<typeof MonthHours.Type>, never, CurrentTenant> =>
      db.query((tenantId) =>
        sql`SELECT to_char(h.date, 'YYYY-MM') AS month, sum(h.hours) AS hours FROM vol_hours h
            WHERE h.tenant_id = ${tenantId} AND ${approvedIn(days)}
            GROUP BY 1`.pipe(decodeRows(MonthHours))
      )

    /** Approved hours per organisation, with its name, most first. */
    const hoursByOrganisation = (
      days: DayInterval
    ): Effect.Effect<ReadonlyArray<typeof OrganisationHours.Type>, never, CurrentTenant> =>
      db.query((tenantId) =>
        sql`SELECT o.id AS organisation_id, o.name, t.hours
            FROM (SELECT h.organisation_id, sum(h.hours) AS hours FROM vol_hours h
                  WHERE h.tenant_id = ${tenantId} AND ${approvedIn(days)}
                  GROUP BY h.organisation_id) t
            JOIN vol_organisations o ON o.id = t.organisation_id AND o.tenant_id = ${tenantId}
            ORDER BY t.hours DESC, lower(o.name), o.id`.pipe(decodeRows(OrganisationHours))
      )

    /** Members with approved hours in the interval. */
    const volunteers = (days: DayInterval): Effect.Effect<ReadonlyArray<number>, never, CurrentTenant> =>
      db.query((tenantId) =>
        sql`SELECT DISTINCT h.user_id AS id FROM vol_hours h
            WHERE h.tenant_id = ${tenantId} AND ${approvedIn(days)}`.pipe(
          decodeRows(IdRow),
          Effect.map((rows) => rows.map((r) => r.id))
        )
      )

    const monthRows = streamRows(OrganisationMonthRow)
    const organisationRows = streamRows(OrganisationExportRow)

    /** Approved hours per organisation and month, by month then organisation name, through a cursor. */
    const hoursPerOrganisationMonth = (days: DayInterval): Stream.Stream<OrganisationMonthRow, never, CurrentTenant> =>
      tenantStream((tenantId) =>
        monthRows(sql`
          SELECT o.id AS organisation_id, o.name AS organisation, t.month, t.hours
          FROM (SELECT h.organisation_id, to_char(h.date, 'YYYY-MM') AS month, sum(h.hours) AS hours
                FROM vol_hours h WHERE h.tenant_id = ${tenantId} AND ${approvedIn(days)}
                GROUP BY 1, 2) t
          JOIN vol_organisations o ON o.id = t.organisation_id AND o.tenant_id = ${tenantId}
          ORDER BY t.month, lower(o.name), o.id`)
      )

    /** Every organisation (any status), by name, with its volunteers and approved hours of the interval. */
    const organisations = (days: DayInterval): Stream.Stream<OrganisationExportRow, never, CurrentTenant> =>
      tenantStream((tenantId) =>
        organisationRows(sql`
          SELECT o.id, o.name, o.status, o.user_id AS owner_id,
                 COALESCE(t.volunteers, 0) AS volunteers, COALESCE(t.hours, 0) AS hours
          FROM vol_organisations o
          LEFT JOIN (SELECT h.organisation_id, count(DISTINCT h.user_id)::int AS volunteers, sum(h.hours) AS hours
                     FROM vol_hours h WHERE h.tenant_id = ${tenantId} AND ${approvedIn(days)}
                     GROUP BY h.organisation_id) t ON t.organisation_id = o.id
          WHERE o.tenant_id = ${tenantId}
          ORDER BY lower(o.name), o.id`)
      )

    return { hoursByMonth, hoursByOrganisation, volunteers, hoursPerOrganisationMonth, organisations } as const
  })
}) {}
