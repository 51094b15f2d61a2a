import { MyOrganisation, OrganisationDetail, type OrganisationOwner } from "@timebank/domain"
import { DateTime, Effect, Fiber } from "effect"
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

    /**
     * Owners and aggregates of `rows`, keyed by organisation id: the aggregates on a fiber of their own while the
     * owners load. Not `Effect.all({ ... }, { concurrency: 2 })`: its machinery (a fiber per effect, joined back
     * with a merge of their FiberRefs into the request's, every ref the HTTP stack sets compared one by one) cost
     * about a tenth of a directory request. Awaiting the one fiber's Exit takes its result only; the lookups set
     * nothing the request needs back. A failure of either still fails the page with its cause, and the fiber, a
     * child of the request's, ends with it at the latest.
     */
    const related = <Row extends Pick<OrganisationRow, "id" | "user_id">>(rows: ReadonlyArray<Row>) =>
      Effect.flatMap(Effect.fork(aggregates.forIds(rows.map((r) => r.id))), (statsFiber) =>
        Effect.zipWith(
          users.byIds(rows.map((r) => r.user_id)),
          Effect.flatMap(Fiber.await(statsFiber), (exit) => exit),
          (owners, stats) => (row: Row) => ({
            owner: memberOf(owners, row.user_id),
            stats: stats.get(row.id) ?? emptyStats
          })
        ))

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

    return { related, detail, mine } as const
  })
}) {}
