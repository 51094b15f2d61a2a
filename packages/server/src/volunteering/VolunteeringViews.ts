import {
  HourLog,
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
import type { ApplicationRow } from "./ApplicationRepo.js"
import type { HourLogRow } from "./HourLogRepo.js"
import { OpportunityRepo } from "./OpportunityRepo.js"
import { OrganisationRepo } from "./OrganisationRepo.js"

/** Shown for a member the users table no longer answers for (it keeps erased users, so this should not happen). */
const deletedMember = (id: UserId): UserSummary => ({
  id,
  first_name: "Deleted",
  last_name: "User",
  avatar_url: null
})

/** The member `id` among a page's summaries (`UserSummaries.byIds`). */
export const memberOf = (members: ReadonlyMap<number, UserSummary>, id: UserId): UserSummary =>
  members.get(id) ?? deletedMember(id)

/** The payment part of an hour log, from its row: amount only once paid (auto-pay pays the logged hours). */
export const hourPayment = (row: Pick<HourLogRow, "hours" | "payment_status" | "transaction_id">): HourPayment => ({
  status: row.payment_status,
  transaction_id: row.transaction_id,
  amount: row.payment_status === "paid" ? row.hours : null
})

const nullableDateTime = (date: Date | null) => (date === null ? null : DateTime.unsafeFromDate(date))

const opportunityOf = (refs: ReadonlyMap<number, OpportunityRef>, id: OpportunityId): OpportunityRef =>
  refs.get(id) ?? { id, title: "Deleted opportunity" }
const organisationOf = (refs: ReadonlyMap<number, OrganisationRef>, id: OrganisationId): OrganisationRef =>
  refs.get(id) ?? { id, name: "Deleted organisation" }

/**
 * Applications and hour logs as the API shows them, shared by the dashboards and the opportunity, application and
 * hours routes. Each relation (members, opportunities, organisations) is one query for the whole page, side by
 * side, never one per item.
 */
export class VolunteeringViews extends Effect.Service<VolunteeringViews>()("VolunteeringViews", {
  dependencies: [UserSummaries.Default, OpportunityRepo.Default, OrganisationRepo.Default],
  effect: Effect.gen(function*() {
    const users = yield* UserSummaries
    const opportunityRepo = yield* OpportunityRepo
    const organisationRepo = yield* OrganisationRepo

    /** Application rows with their members and opportunities: two queries per page. */
    const applications = (rows: ReadonlyArray<ApplicationRow>) =>
      Effect.gen(function*() {
        const { members, opportunities } = yield* Effect.all({
          members: users.byIds(rows.map((r) => r.user_id)),
          opportunities: opportunityRepo.refs(rows.map((r) => r.opportunity_id))
        }, { concurrency: 2 })
        return rows.map((row) =>
          VolunteerApplication.make({
            id: row.id,
            opportunity: opportunityOf(opportunities, row.opportunity_id),
            organisation_id: row.organisation_id,
            user: memberOf(members, row.user_id),
            message: row.message,
            status: row.status,
            created_at: DateTime.unsafeFromDate(row.created_at),
            reviewed_at: nullableDateTime(row.reviewed_at)
          })
        )
      }).pipe(Effect.withSpan("VolunteeringViews.applications", { attributes: { count: rows.length } }))

    /** Hour-log rows with their members, organisations and opportunities: three queries per page. */
    const hourLogs = (rows: ReadonlyArray<HourLogRow>) =>
      Effect.gen(function*() {
        const { members, organisations, opportunities } = yield* Effect.all({
          members: users.byIds(rows.map((r) => r.user_id)),
          organisations: organisationRepo.refs(rows.map((r) => r.organisation_id)),
          opportunities: opportunityRepo.refs(
            rows.flatMap((r) => (r.opportunity_id === null ? [] : [r.opportunity_id]))
          )
        }, { concurrency: 3 })
        return rows.map((row) =>
          HourLog.make({
            id: row.id,
            organisation: organisationOf(organisations, row.organisation_id),
            opportunity: row.opportunity_id === null ? null : opportunityOf(opportunities, row.opportunity_id),
            user: memberOf(members, row.user_id),
            date: row.date,
            hours: row.hours,
            description: row.description,
            status: row.status,
            created_at: DateTime.unsafeFromDate(row.created_at),
            reviewed_at: nullableDateTime(row.reviewed_at),
            payment: hourPayment(row)
          })
        )
      }).pipe(Effect.withSpan("VolunteeringViews.hourLogs", { attributes: { count: rows.length } }))

    return {
      applications,
      application: (row: ApplicationRow) => Effect.map(applications([row]), (views) => views[0]!),
      hourLogs,
      hourLog: (row: HourLogRow) => Effect.map(hourLogs([row]), (views) => views[0]!)
    } as const
  })
}) {}
