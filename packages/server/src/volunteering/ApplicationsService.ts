import {
  AlreadyExists,
  type ApplicationId,
  type ApplyToOpportunity,
  CurrentUser,
  DomainEvents,
  NotFound,
  type OpportunityId,
  type ReviewDecision,
  ValidationFailed,
  type VolunteeringPageParams
} from "@timebank/domain"
import { Effect, Option } from "effect"
import { Outbox } from "../platform/Outbox.js"
import { CommunityMember, requireCommunityMember } from "../platform/Policy.js"
import { TenantSql } from "../platform/TenantSql.js"
import { ApplicationRepo } from "./ApplicationRepo.js"
import { OpportunitiesService } from "./OpportunitiesService.js"
import { OrganisationAccess, OrganisationManager, requireNotOwn } from "./OrganisationPolicy.js"
import { volunteeringPage } from "./VolunteeringPage.js"
import { VolunteeringViews } from "./VolunteeringViews.js"

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

    const find = (id: number) => repo.findById(id).pipe(Effect.flatten, Effect.orElseFail(applicationNotFound))

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
            organisationId: opportunity.organisation_id,
            userId: applicant.userId,
            message
          })
          // The unique index saw an application our check missed (the same member, a moment earlier).
          if (Option.isNone(inserted)) return yield* alreadyApplied()
          yield* outbox.append(
            new DomainEvents.VolApplicationCreated({
              application_id: inserted.value.id,
              opportunity_id: opportunityId,
              organisation_id: opportunity.organisation_id,
              user_id: applicant.userId
            })
          )
          return inserted.value
        }))
        return yield* views.application(row)
      })

    const apply = Effect.fn("Applications.apply")(function*(opportunityId: OpportunityId, input: ApplyToOpportunity) {
      return yield* requireCommunityMember("apply to opportunities")(submit(opportunityId, input))
    })

    const review = Effect.fn("Applications.review")(function*(id: ApplicationId, decision: ReviewDecision) {
      const row = yield* find(id)
      return yield* access.change(row.organisation_id)(Effect.gen(function*() {
        const { actor, organisation } = yield* OrganisationManager
        yield* requireNotOwn(row.user_id, actor, "application")
        if (row.status === decision) return yield* views.application(row)
        // Read outside the transaction: an application's opportunity never changes (and is never deleted alone).
        const opportunity = yield* opportunities.find(row.opportunity_id)
        const decided = yield* db.transaction(Effect.gen(function*() {
          const updated = yield* repo.decide(id, decision, actor.userId)
          if (Option.isSome(updated)) {
            yield* outbox.append(
              new DomainEvents.VolApplicationReviewed({
                application_id: id,
                opportunity_id: updated.value.opportunity_id,
                organisation_id: updated.value.organisation_id,
                user_id: updated.value.user_id,
                status: decision,
                reviewed_by: actor.userId,
                opportunity_title: opportunity.title,
                organisation_name: organisation.name
              })
            )
          }
          return updated
        }))
        // Nothing changed: another manager made the same decision a moment earlier.
        return yield* views.application(Option.isSome(decided) ? decided.value : yield* find(id))
      }))
    })

    /** One statement for the page, then one per relation (members, opportunities). */
    const mine = Effect.fn("Applications.mine")(function*(params: VolunteeringPageParams) {
      const actor = yield* CurrentUser
      return yield* volunteeringPage(params, (page) => repo.byUser(actor.userId, page), views.applications)
    })

    return { apply, review, mine } as const
  })
}) {}
