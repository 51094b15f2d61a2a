import {
  DirectoryOrganisation,
  type MemberRole,
  MyOrganisation,
  OrganisationDetail,
  type OrganisationId,
  type OrganisationOwner
} from "@timebank/domain"
import { DateTime, Effect } from "effect"
import { UserSummaries } from "../identity/UserSummaries.js"
import { emptyStats, OrganisationAggregates, type OrganisationStats } from "./OrganisationAggregates.js"
import type { OrganisationRow } from "./OrganisationRepo.js"

const unknownOwner = (id: number): OrganisationOwner => ({
  id,
  first_name: "Deleted",
  last_name: "User",
  avatar_url: null
})

/** The fields every organisation view shares (never `balance`, `auto_pay_enabled`, `tenant_id`). */
export const directoryFields = (row: OrganisationRow, owner: OrganisationOwner, stats: OrganisationStats) => ({
  id: Number(row.id) as OrganisationId,
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
    const related = (rows: ReadonlyArray<OrganisationRow>) =>
      Effect.map(
        Effect.all({
          owners: users.byIds(rows.map((r) => Number(r.user_id))),
          stats: aggregates.forIds(rows.map((r) => Number(r.id)))
        }, { concurrency: 2 }),
        ({ owners, stats }) => (row: OrganisationRow) => {
          const ownerId = Number(row.user_id)
          const owner = owners.get(ownerId)
          return {
            owner: owner === undefined
              ? unknownOwner(ownerId)
              : { id: ownerId, first_name: owner.first_name, last_name: owner.last_name, avatar_url: owner.avatar_url },
            stats: stats.get(Number(row.id)) ?? emptyStats
          }
        }
      )

    const directory = (rows: ReadonlyArray<OrganisationRow>) =>
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
        return OrganisationDetail.make({ ...directoryFields(row, owner, stats), review_count: stats.review_count })
      })

    const mine = (rows: ReadonlyArray<OrganisationRow & { readonly member_role: MemberRole }>) =>
      Effect.map(related(rows), (of) =>
        rows.map((row) => {
          const { owner, stats } = of(row)
          return MyOrganisation.make({
            ...directoryFields(row, owner, stats),
            review_count: stats.review_count,
            slug: row.slug,
            status: row.status,
            role: row.member_role
          })
        }))

    return { related, directory, detail, mine } as const
  })
}) {}
