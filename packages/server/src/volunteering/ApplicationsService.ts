import {
  AlreadyExists,
  type ApplicationId,
  type ApplyToOpportunity,
  CurrentUser,
  Forbidden,
  NotFound,
  type OpportunityId,
  type ReviewDecision,
  ValidationFailed,
  VOLUNTEERING_PER_PAGE_DEFAULT,
  type VolunteeringPageParams
} from "@timebank/domain"
import { Effect, Option } from "effect"
import { CommunityMember, requireCommunityMember } from "../identity/Policy.js"
import { requireFeature } from "../platform/FeatureGate.js"
import { Outbox } from "../platform/Outbox.js"
import { idCursorPage } from "../platform/Paging.js"
import { TenantSql } from "../platform/TenantSql.js"
import { ApplicationRepo } from "./ApplicationRepo.js"
import { OpportunitiesService } from "./OpportunitiesService.js"
import { OrganisationAccess, OrganisationManager, requireNotSuspended } from "./OrganisationPolicy.js"
import { VolunteeringViews } from "./VolunteeringViews.js"

const gate = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.zipRight(requireFeature("volunteering"), effect)

export const applicationNotFound = () => NotFound.of("Application")

const alreadyApplied = () =>
  new AlreadyExists({ message: "You have already applied to this opportunity", field: "opportunity_id" })

/**
 * Applications of members to opportunities (decisions D7). A decision may be changed later (an organisation may
 * stop working with a volunteer, or take back a refusal); deciding the same again changes nothing.
 */
export class ApplicationsService extends Effect.Service<ApplicationsService>()("ApplicationsService", {
  dependencies: [
    ApplicationRepo.Default,
    OpportunitiesService.Default,
    OrganisationAccess.Default,
    VolunteeringViews.Default,
    Outbox.Default,
    TenantSql.Default
  ],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const repo = yield* ApplicationRepo
    const opportunities = yield* OpportunitiesService
    const access = yield* OrganisationAccess
    const views = yield* VolunteeringViews
    const outbox = yield* Outbox

    const find = (id: number) =>
      Effect.flatMap(
        repo.findById(id),
        Option.match({ onNone: () => Effect.fail(applicationNotFound()), onSome: Effect.succeed })
      )

    const submit = (opportunityId: OpportunityId, input: ApplyToOpportunity) =>
      Effect.gen(function*() {
        const applicant = yield* CommunityMember
        const opportunity = yield* opportunities.visible(opportunityId)
        if (opportunity.status !== "open") {
          return yield* ValidationFailed.field("opportunity", "is closed and takes no applications")
        }
        if (Option.isSome(yield* repo.findByApplicant(opportunityId, applicant.userId))) {
          return yield* alreadyApplied()
        }
        const message = input.message === undefined || input.message === null || input.message === ""
          ? null
          : input.message
        const row = yield* db.transaction(Effect.gen(function*() {
          const inserted = yield* repo.insert({
            opportunityId,
            organisationId: Number(opportunity.organisation_id),
            userId: applicant.userId,
            message
          })
          // The unique index saw an application our check missed (the same member, a moment earlier).
          if (Option.isNone(inserted)) return yield* alreadyApplied()
          yield* outbox.append("VolApplicationCreated", {
            application_id: Number(inserted.value.id),
            opportunity_id: opportunityId,
            organisation_id: Number(opportunity.organisation_id),
            user_id: applicant.userId
          })
          return inserted.value
        }))
        return yield* views.application(row)
      })

    const apply = Effect.fn("Applications.apply")(function*(opportunityId: OpportunityId, input: ApplyToOpportunity) {
      return yield* requireCommunityMember("apply to opportunities")(submit(opportunityId, input))
    }, gate)

    const review = Effect.fn("Applications.review")(function*(id: ApplicationId, decision: ReviewDecision) {
      const row = yield* find(id)
      return yield* access.manage(Number(row.organisation_id))(Effect.gen(function*() {
        const { actor, organisation } = yield* OrganisationManager
        yield* requireNotSuspended(organisation)
        if (Number(row.user_id) === actor.userId) {
          return yield* new Forbidden({ message: "Nobody approves or declines their own application" })
        }
        if (row.status === decision) return yield* views.application(row)
        const decided = yield* db.transaction(Effect.gen(function*() {
          const updated = yield* repo.decide(id, decision, actor.userId)
          if (Option.isSome(updated)) {
            yield* outbox.append("VolApplicationReviewed", {
              application_id: id,
              opportunity_id: Number(updated.value.opportunity_id),
              organisation_id: Number(updated.value.organisation_id),
              user_id: Number(updated.value.user_id),
              status: decision,
              reviewed_by: actor.userId
            })
          }
          return updated
        }))
        // Nothing changed: another manager made the same decision a moment earlier.
        return yield* views.application(Option.isSome(decided) ? decided.value : yield* find(id))
      }))
    }, gate)

    /** One statement for the page, then one per relation (members, opportunities). */
    const mine = Effect.fn("Applications.mine")(function*(params: VolunteeringPageParams) {
      const actor = yield* CurrentUser
      const perPage = params.per_page ?? VOLUNTEERING_PER_PAGE_DEFAULT
      const rows = yield* repo.byUser(actor.userId, params.cursor, perPage + 1)
      return yield* idCursorPage(rows, perPage, views.applications)
    }, gate)

    return { apply, review, mine } as const
  })
}) {}
