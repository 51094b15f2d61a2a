import {
  type ApplicationId,
  type ApplicationStatus,
  type CurrentTenant,
  HourLog,
  type HourLogId,
  type HourLogStatus,
  type HourPayment,
  type OpportunityId,
  type OpportunityRef,
  type OrganisationId,
  type OrganisationRef,
  type UserId,
  type UserSummary,
  VolunteerApplication
} from "@timebank/domain"
import { DateTime, Effect } from "effect"
import { UserSummaries } from "../identity/UserSummaries.js"
import { TenantSql } from "../platform/TenantSql.js"

/** The columns of a `vol_applications` row the views read (`SELECT *` gives them). */
export interface ApplicationRow {
  readonly id: string
  readonly opportunity_id: string
  readonly organisation_id: string
  readonly user_id: string
  readonly message: string | null
  readonly status: ApplicationStatus
  readonly created_at: Date
  readonly reviewed_at: Date | null
}

/** The columns of a `vol_hours` row the views read (`SELECT *` gives them). */
export interface HourLogRow {
  readonly id: string
  readonly organisation_id: string
  readonly opportunity_id: string | null
  readonly user_id: string
  /** pg hands a `date` column over as a local-midnight Date; `date::text` as a string. Both are accepted. */
  readonly date: Date | string
  readonly hours: string | number
  readonly description: string
  readonly status: HourLogStatus
  readonly created_at: Date
  readonly reviewed_at: Date | null
  readonly payment_status: HourPayment["status"]
  readonly transaction_id: string | null
}

const unknownUser = (id: number): UserSummary => ({
  id: id as UserId,
  first_name: "Deleted",
  last_name: "User",
  avatar_url: null
})

const pad = (n: number) => String(n).padStart(2, "0")

/** `YYYY-MM-DD` of a `date` column, whichever way pg handed it over. */
export const isoDate = (value: Date | string): string =>
  typeof value === "string"
    ? value.slice(0, 10)
    : `${value.getFullYear()}-${pad(value.getMonth() + 1)}-${pad(value.getDate())}`

/** The payment part of an hour log, from its row: amount only once paid (auto-pay pays the logged hours). */
export const hourPayment = (row: Pick<HourLogRow, "hours" | "payment_status" | "transaction_id">): HourPayment => ({
  status: row.payment_status,
  transaction_id: row.transaction_id === null ? null : Number(row.transaction_id),
  amount: row.payment_status === "paid" ? Number(row.hours) : null
})

const dateTime = (date: Date) => DateTime.unsafeFromDate(date)
const nullableDateTime = (date: Date | null) => (date === null ? null : DateTime.unsafeFromDate(date))

/**
 * Applications and hour logs as the API shows them, shared by the dashboards and the opportunity, application and
 * hours routes. Each relation (members, opportunities, organisations) is one query for the whole page, side by
 * side, never one per item.
 */
export class VolunteeringViews extends Effect.Service<VolunteeringViews>()("VolunteeringViews", {
  dependencies: [UserSummaries.Default, TenantSql.Default],
  effect: Effect.gen(function*() {
    const users = yield* UserSummaries
    const db = yield* TenantSql
    const { sql } = db

    const opportunityRefs = (
      ids: ReadonlyArray<number>
    ): Effect.Effect<ReadonlyMap<number, OpportunityRef>, never, CurrentTenant> => {
      const unique = [...new Set(ids)]
      if (unique.length === 0) return Effect.succeed(new Map())
      return db.query((tenantId) =>
        sql<{ id: string; title: string }>`
          SELECT id, title FROM vol_opportunities WHERE tenant_id = ${tenantId} AND id IN ${sql.in(unique)}`.pipe(
          Effect.map((rows) =>
            new Map(rows.map((r) => [Number(r.id), { id: Number(r.id) as OpportunityId, title: r.title }] as const))
          )
        )
      )
    }

    const organisationRefs = (
      ids: ReadonlyArray<number>
    ): Effect.Effect<ReadonlyMap<number, OrganisationRef>, never, CurrentTenant> => {
      const unique = [...new Set(ids)]
      if (unique.length === 0) return Effect.succeed(new Map())
      return db.query((tenantId) =>
        sql<{ id: string; name: string }>`
          SELECT id, name FROM vol_organisations WHERE tenant_id = ${tenantId} AND id IN ${sql.in(unique)}`.pipe(
          Effect.map((rows) =>
            new Map(rows.map((r) => [Number(r.id), { id: Number(r.id) as OrganisationId, name: r.name }] as const))
          )
        )
      )
    }

    const opportunityOf = (refs: ReadonlyMap<number, OpportunityRef>, id: number): OpportunityRef =>
      refs.get(id) ?? { id: id as OpportunityId, title: "Deleted opportunity" }
    const organisationOf = (refs: ReadonlyMap<number, OrganisationRef>, id: number): OrganisationRef =>
      refs.get(id) ?? { id: id as OrganisationId, name: "Deleted organisation" }

    /** Application rows with their members and opportunities: two queries per page. */
    const applications = (rows: ReadonlyArray<ApplicationRow>) =>
      Effect.gen(function*() {
        const { members, opportunities } = yield* Effect.all({
          members: users.byIds(rows.map((r) => Number(r.user_id))),
          opportunities: opportunityRefs(rows.map((r) => Number(r.opportunity_id)))
        }, { concurrency: 2 })
        return rows.map((row) => {
          const userId = Number(row.user_id)
          return VolunteerApplication.make({
            id: Number(row.id) as ApplicationId,
            opportunity: opportunityOf(opportunities, Number(row.opportunity_id)),
            organisation_id: Number(row.organisation_id) as OrganisationId,
            user: members.get(userId) ?? unknownUser(userId),
            message: row.message,
            status: row.status,
            created_at: dateTime(row.created_at),
            reviewed_at: nullableDateTime(row.reviewed_at)
          })
        })
      }).pipe(Effect.withSpan("VolunteeringViews.applications", { attributes: { count: rows.length } }))

    /** Hour-log rows with their members, organisations and opportunities: three queries per page. */
    const hourLogs = (rows: ReadonlyArray<HourLogRow>) =>
      Effect.gen(function*() {
        const { members, organisations, opportunities } = yield* Effect.all({
          members: users.byIds(rows.map((r) => Number(r.user_id))),
          organisations: organisationRefs(rows.map((r) => Number(r.organisation_id))),
          opportunities: opportunityRefs(
            rows.flatMap((r) => (r.opportunity_id === null ? [] : [Number(r.opportunity_id)]))
          )
        }, { concurrency: 3 })
        return rows.map((row) => {
          const userId = Number(row.user_id)
          return HourLog.make({
            id: Number(row.id) as HourLogId,
            organisation: organisationOf(organisations, Number(row.organisation_id)),
            opportunity: row.opportunity_id === null ? null : opportunityOf(opportunities, Number(row.opportunity_id)),
            user: members.get(userId) ?? unknownUser(userId),
            date: isoDate(row.date),
            hours: Number(row.hours),
            description: row.description,
            status: row.status,
            created_at: dateTime(row.created_at),
            reviewed_at: nullableDateTime(row.reviewed_at),
            payment: hourPayment(row)
          })
        })
      }).pipe(Effect.withSpan("VolunteeringViews.hourLogs", { attributes: { count: rows.length } }))

    return {
      applications,
      application: (row: ApplicationRow) => Effect.map(applications([row]), (views) => views[0]!),
      hourLogs,
      hourLog: (row: HourLogRow) => Effect.map(hourLogs([row]), (views) => views[0]!)
    } as const
  })
}) {}
