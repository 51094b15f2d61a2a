import {
  type CreateOpportunity,
  isVisibleStatus,
  NotFound,
  Opportunity,
  type OpportunityId,
  type OpportunityListParams,
  type OrganisationId,
  type UpdateOpportunity,
  VOLUNTEERING_PER_PAGE_DEFAULT
} from "@timebank/domain"
import { DateTime, Effect, Option } from "effect"
import { requireFeature } from "../platform/FeatureGate.js"
import { Outbox } from "../platform/Outbox.js"
import { idCursorPage } from "../platform/Paging.js"
import { TenantSql } from "../platform/TenantSql.js"
import { type OpportunityPatch, OpportunityRepo, type OpportunityRow } from "./OpportunityRepo.js"
import { OrganisationAccess, OrganisationManager, requireActive, requireNotSuspended } from "./OrganisationPolicy.js"

/** Every route of this feature answers 403 `FEATURE_DISABLED` while `volunteering` is off. */
const gate = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.zipRight(requireFeature("volunteering"), effect)

export const opportunityNotFound = () => NotFound.of("Opportunity")

/** The API view of an opportunity row (its organisation's name comes with the row). */
export const toOpportunity = (row: OpportunityRow) =>
  Opportunity.make({
    id: Number(row.id) as OpportunityId,
    organisation_id: Number(row.organisation_id) as OrganisationId,
    organisation: { id: Number(row.organisation_id) as OrganisationId, name: row.organisation_name },
    title: row.title,
    description: row.description,
    location: row.location,
    status: row.status,
    created_at: DateTime.unsafeFromDate(row.created_at),
    updated_at: DateTime.unsafeFromDate(row.updated_at)
  })

/** Opportunities of organisations (decisions D7); gated on the `volunteering` feature. */
export class OpportunitiesService extends Effect.Service<OpportunitiesService>()("OpportunitiesService", {
  dependencies: [OpportunityRepo.Default, OrganisationAccess.Default, Outbox.Default, TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const repo = yield* OpportunityRepo
    const access = yield* OrganisationAccess
    const outbox = yield* Outbox

    /** The opportunity of this community, whatever its or its organisation's status, or 404. */
    const find = (id: number) =>
      Effect.flatMap(
        repo.findById(id),
        Option.match({ onNone: () => Effect.fail(opportunityNotFound()), onSome: Effect.succeed })
      )

    /** An opportunity the public may see: open or closed, of a visible organisation. */
    const visible = (id: number) =>
      Effect.flatMap(
        find(id),
        (row) => isVisibleStatus(row.organisation_status) ? Effect.succeed(row) : Effect.fail(opportunityNotFound())
      )

    /** One query per page: the organisation's name and visibility come from a join. */
    const list = Effect.fn("Opportunities.list")(function*(params: OpportunityListParams) {
      const perPage = params.per_page ?? VOLUNTEERING_PER_PAGE_DEFAULT
      const rows = yield* repo.listOpen({
        before: params.cursor,
        limit: perPage + 1,
        organisationId: params.organisation_id,
        search: params.search
      })
      return yield* idCursorPage(rows, perPage, (page) => Effect.succeed(page.map(toOpportunity)))
    }, gate)

    const get = Effect.fn("Opportunities.get")(function*(id: OpportunityId) {
      return toOpportunity(yield* visible(id))
    }, gate)

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
            yield* outbox.append("VolOpportunityCreated", {
              opportunity_id: Number(row.id),
              organisation_id: organisationId,
              title: row.title,
              status: row.status,
              created_by: actor.userId
            })
            return row
          }))
          return toOpportunity(row)
        }))
      },
      gate
    )

    const update = Effect.fn("Opportunities.update")(function*(id: OpportunityId, patch: UpdateOpportunity) {
      const row = yield* find(id)
      return yield* access.manage(Number(row.organisation_id))(Effect.gen(function*() {
        const { actor, organisation } = yield* OrganisationManager
        yield* requireNotSuspended(organisation)
        const changes: OpportunityPatch = {
          title: patch.title,
          description: patch.description,
          location: patch.location,
          status: patch.status
        }
        const fields = Object.keys(changes).filter((key) => changes[key as keyof OpportunityPatch] !== undefined)
        if (fields.length === 0) return toOpportunity(row)
        const updated = yield* db.transaction(Effect.gen(function*() {
          const updated = yield* Effect.flatMap(
            repo.update(id, changes),
            Option.match({ onNone: () => Effect.fail(opportunityNotFound()), onSome: Effect.succeed })
          )
          yield* outbox.append("VolOpportunityUpdated", {
            opportunity_id: id,
            organisation_id: Number(updated.organisation_id),
            fields,
            title: updated.title,
            status: updated.status,
            updated_by: actor.userId
          })
          return updated
        }))
        return toOpportunity(updated)
      }))
    }, gate)

    return { find, visible, list, get, create, update } as const
  })
}) {}
