import { DirectoryOrganisation, MyOrganisation, OrganisationDetail, type OrganisationOwner } from "@timebank/domain"
import { DateTime, Effect } from "effect"
import { UserSummaries } from "../identity/UserSummaries.js"
import { emptyStats, OrganisationAggregates, type OrganisationStats } from "./OrganisationAggregates.js"
import type { DirectoryRow, ManagedOrganisationRow, OrganisationRow } from "./OrganisationRepo.js"
import { memberOf } from "./VolunteeringViews.js"

/** The fields every organisation view shares (never `balance`, `auto_pay_enabled`, `tenant_id`). */
export const directoryFields = (row: DirectoryRow, owner: OrganisationOwner, stats: OrganisationStats) => ({
  id: row.id,
  name: row.name,
  description: row.description,
  logo_url: row.logo_url,
  website: row.website,
  contact_email: row.contact_email,
  location: row.location,
  opportunity_count: stats.opportunity_count,
  volunteer_count: stats.volunteer_count,
  total_hours: stats.total_hours,
  average_rating: stats.average_rating,
  created_at: DateTime.unsafeFromDate(row.created_at),
  owner
})

/** The fields of the views that count reviews (detail). */
const detailFields = (row: OrganisationRow, owner: OrganisationOwner, stats: OrganisationStats) => ({
  ...directoryFields(row, owner, stats),
  review_count: stats.review_count
})

/** The fields of the views of those who run organisations (theirs, and the admins'). */
export const managedFields = (row: OrganisationRow, owner: OrganisationOwner, stats: OrganisationStats) => ({
  ...detailFields(row, owner, stats),
  slug: row.slug,
  status: row.status
})

/**
 * Organisation rows as the API shows them, with owners and aggregates: two queries per page (owners, aggregates),
 * side by side, whatever the page's length.
 */
export class OrganisationViews extends Effect.Service<OrganisationViews>()("OrganisationViews", {
  dependencies: [UserSummaries.Default, OrganisationAggregates.Default],
  effect: Effect.gen(function*() {
    const users = yield* UserSummaries
    const aggregates = yield* OrganisationAggregates

    /** Owners and aggregates of `rows`, keyed by organisation id. */
    const related = <Row extends Pick<OrganisationRow, "id" | "user_id">>(rows: ReadonlyArray<Row>) =>
      Effect.map(
        Effect.all({
          owners: users.byIds(rows.map((r) => r.user_id)),
          stats: aggregates.forIds(rows.map((r) => r.id))
        }, { concurrency: 2 }),
        ({ owners, stats }) => (row: Row) => ({
          owner: memberOf(owners, row.user_id),
          stats: stats.get(row.id) ?? emptyStats
        })
      )

    const directory = (rows: ReadonlyArray<DirectoryRow>) =>
      Effect.map(related(rows), (of) =>
        rows.map((row) => {
          const { owner, stats } = of(row)
          // No validation on construction: the row types already guarantee the fields, and the HTTP edge checks
          // them again when it encodes the response (the directory is the hottest public read).
          return DirectoryOrganisation.make(directoryFields(row, owner, stats), true)
        }))

    const detail = (row: OrganisationRow) =>
      Effect.map(related([row]), (of) => {
        const { owner, stats } = of(row)
        return OrganisationDetail.make(detailFields(row, owner, stats))
      })

    const mine = (rows: ReadonlyArray<ManagedOrganisationRow>) =>
      Effect.map(related(rows), (of) =>
        rows.map((row) => {
          const { owner, stats } = of(row)
          return MyOrganisation.make({ ...managedFields(row, owner, stats), role: row.member_role })
        }))

    return { related, directory, detail, mine } as const
  })
}) {}
