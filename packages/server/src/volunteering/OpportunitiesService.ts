import {
  type CreateOpportunity,
  DomainEvents,
  isVisibleStatus,
  NotFound,
  Opportunity,
  type OpportunityId,
  type OpportunityListParams,
  type OrganisationId,
  type UpdateOpportunity
} from "@timebank/domain"
import { DateTime, Effect } from "effect"
import { Outbox } from "../platform/Outbox.js"
import { definedOnly } from "../platform/SqlErrors.js"
import { TenantSql } from "../platform/TenantSql.js"
import { type OpportunityPatch, OpportunityRepo, type OpportunityRow } from "./OpportunityRepo.js"
import { OrganisationAccess, OrganisationManager, requireActive } from "./OrganisationPolicy.js"
import { volunteeringPage } from "./VolunteeringPage.js"

export const opportunityNotFound = () => NotFound.of("Opportunity")

/** The API view of an opportunity row (its organisation's name comes with the row). */
export const toOpportunity = (row: OpportunityRow) =>
  Opportunity.make({
    id: row.id,
    organisation_id: row.organisation_id,
    organisation: { id: row.organisation_id, name: row.organisation_name },
    title: row.title,
    description: row.description,
    location: row.location,
    status: row.status,
    created_at: DateTime.unsafeFromDate(row.created_at),
    updated_at: DateTime.unsafeFromDate(row.updated_at)
  })

/** Opportunities of organisations (decisions D7); the contract gates their routes on the `volunteering` feature. */
export class OpportunitiesService extends Effect.Service<OpportunitiesService>()("OpportunitiesService", {
  dependencies: [OpportunityRepo.Default, OrganisationAccess.Default, Outbox.Default, TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const repo = yield* OpportunityRepo
    const access = yield* OrganisationAccess
    const outbox = yield* Outbox

    /** The opportunity of this community, whatever its or its organisation's status, or 404. */
    const find = (id: number) => repo.findById(id).pipe(Effect.flatten, Effect.orElseFail(opportunityNotFound))

    /** An opportunity the public may see: open or closed, of a visible organisation. */
    const visible = (id: number) =>
      Effect.flatMap(
        find(id),
        (row) => isVisibleStatus(row.organisation_status) ? Effect.succeed(row) : Effect.fail(opportunityNotFound())
      )

    /** One query per page: the organisation's name and visibility come from a join. */
    const list = Effect.fn("Opportunities.list")(function*(params: OpportunityListParams) {
      return yield* volunteeringPage(
        params,
        (page) => repo.listOpen({ ...page, organisationId: params.organisation_id, search: params.search }),
        (rows) => Effect.succeed(rows.map(toOpportunity))
      )
    })

    const get = Effect.fn("Opportunities.get")(function*(id: OpportunityId) {
      return toOpportunity(yield* visible(id))
    })

    const create = Effect.fn("Opportunities.create")(
      function*(organisationId: OrganisationId, input: CreateOpportunity) {
        return yield* access.manage(organisationId)(Effect.gen(function*() {
          const { actor, organisation } = yield* OrganisationManager
          yield* requireActive(organisation)
          const row = yield* db.transaction(Effect.gen(function*() {
            const row = yield* repo.insert({
              organisationId,
              createdBy: actor.userId,
              title: input.title,
              description: input.description,
              location: input.location ?? null,
              status: input.status ?? "open"
            })
            yield* outbox.append(
              new DomainEvents.VolOpportunityCreated({
                opportunity_id: row.id,
                organisation_id: organisationId,
                title: row.title,
                status: row.status,
                created_by: actor.userId,
                organisation_name: organisation.name
              })
            )
            return row
          }))
          return toOpportunity(row)
        }))
      }
    )

    const update = Effect.fn("Opportunities.update")(function*(id: OpportunityId, patch: UpdateOpportunity) {
      const row = yield* find(id)
      return yield* access.change(row.organisation_id)(Effect.gen(function*() {
        const { actor } = yield* OrganisationManager
        const changes: OpportunityPatch = {
          title: patch.title,
          description: patch.description,
          location: patch.location,
          status: patch.status
        }
        const fields = Object.keys(definedOnly(changes))
        if (fields.length === 0) return toOpportunity(row)
        const updated = yield* db.transaction(Effect.gen(function*() {
          const updated = yield* repo.update(id, changes).pipe(Effect.flatten, Effect.orElseFail(opportunityNotFound))
          yield* outbox.append(
            new DomainEvents.VolOpportunityUpdated({
              opportunity_id: id,
              organisation_id: updated.organisation_id,
              fields,
              title: updated.title,
              status: updated.status,
              updated_by: actor.userId
            })
          )
          return updated
        }))
        return toOpportunity(updated)
      }))
    })

    return { find, visible, list, get, create, update } as const
  })
}) {}
