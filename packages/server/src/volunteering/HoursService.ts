import {
  type Actor,
  AlreadyReviewed,
  CurrentTenant,
  CurrentUser,
  DomainEvents,
  type HourLogId,
  InsufficientBalance,
  type LogHours,
  NotFound,
  type ReviewDecision,
  toCents,
  ValidationFailed,
  type ValidationIssue,
  type VolunteeringPageParams
} from "@timebank/domain"
import { Array as Arr, Effect, Option } from "effect"
import { LedgerService } from "../ledger/LedgerService.js"
import { Outbox } from "../platform/Outbox.js"
import { CommunityMember, requireCommunityMember } from "../platform/Policy.js"
import { TenantSql } from "../platform/TenantSql.js"
import { ApplicationRepo } from "./ApplicationRepo.js"
import { HourLogRepo, type HourLogRow } from "./HourLogRepo.js"
import { OpportunityRepo } from "./OpportunityRepo.js"
import { OrganisationAccess, OrganisationManager, requireNotOwn } from "./OrganisationPolicy.js"
import type { OrganisationRow } from "./OrganisationRepo.js"
import { volunteeringPage } from "./VolunteeringPage.js"
import { VolunteeringViews } from "./VolunteeringViews.js"

export const hourLogNotFound = () => NotFound.of("Hour log")

/** The ledger key of a log's auto-payment: whoever asks, and however often, the log is paid once. */
export const autoPayKey = (hourLogId: number) => `autopay:hours:${hourLogId}`

const alreadyReviewed = (status: string) =>
  new AlreadyReviewed({ message: `These hours were already ${status}; a review is final`, field: "status" })

/** A payment the approval owes and has not made yet (auto-pay was on when the hours were approved). */
const owesPayment = (row: HourLogRow) =>
  row.status === "approved" && (row.payment_status === "pending" || row.payment_status === "insufficient_balance")

/**
 * Hours volunteers log and their review (decisions D7). Approval with auto-pay pays the volunteer from the
 * organisation's wallet through the ledger, exactly once:
 *
 * 1. one statement moves the log from `pending` to `approved` (payment `pending` when auto-pay is on), so of two
 *    approvals sent at once only one approves and writes the outbox event;
 * 2. after the commit, every approval request that finds the payment owed asks the ledger to pay with the log's
 *    own key; the Ledger entity serialises moves and answers a repeated key with the first transaction, so racing
 *    or retried requests all get the same payment;
 * 3. the outcome is recorded (`paid` with the transaction, or `insufficient_balance`, which the next approval
 *    retries, for example after the owner deposited). A crash between 1 and 3 leaves `pending`: retried likewise.
 */
export class HoursService extends Effect.Service<HoursService>()("HoursService", {
  dependencies: [
    HourLogRepo.Default,
    ApplicationRepo.Default,
    OpportunityRepo.Default,
    OrganisationAccess.Default,
    VolunteeringViews.Default,
    Outbox.Default,
    TenantSql.Default
  ],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const repo = yield* HourLogRepo
    const applications = yield* ApplicationRepo
    const opportunities = yield* OpportunityRepo
    const access = yield* OrganisationAccess
    const views = yield* VolunteeringViews
    const outbox = yield* Outbox
    const ledger = yield* LedgerService

    const find = (id: number) => repo.findById(id).pipe(Effect.flatten, Effect.orElseFail(hourLogNotFound))

    /** The row as it is now when a conditional update matched nothing (another request got there first). */
    const orCurrent = (id: number) => (row: Option.Option<HourLogRow>) =>
      Option.isSome(row) ? Effect.succeed(row.value) : find(id)

    /** What the log refers to, checked together: the opportunity, and the caller's approved application. */
    const checkReferences = (organisationId: number, opportunityId: number | null, userId: number) =>
      Effect.gen(function*() {
        const issues: Array<ValidationIssue> = []
        if (opportunityId !== null) {
          const opportunity = yield* opportunities.findById(opportunityId)
          if (Option.isNone(opportunity) || opportunity.value.organisation_id !== organisationId) {
            issues.push({ field: "opportunity_id", message: "is not an opportunity of this organisation" })
          }
        }
        if (!(yield* applications.hasApproved(organisationId, userId))) {
          issues.push({
            field: "organisation_id",
            message: "you can log hours only for an organisation that approved one of your applications"
          })
        }
        if (Arr.isNonEmptyArray(issues)) return yield* new ValidationFailed({ issues })
      })

    const record = (input: LogHours) =>
      Effect.gen(function*() {
        const volunteer = yield* CommunityMember
        yield* access.visible(input.organisation_id)
        const opportunityId = input.opportunity_id ?? null
        yield* checkReferences(input.organisation_id, opportunityId, volunteer.userId)
        const row = yield* db.transaction(Effect.gen(function*() {
          const row = yield* repo.insert({
            organisationId: input.organisation_id,
            opportunityId,
            userId: volunteer.userId,
            date: input.date,
            hours: input.hours,
            description: input.description
          })
          yield* outbox.append(
            new DomainEvents.VolHoursLogged({
              hour_log_id: row.id,
              organisation_id: input.organisation_id,
              opportunity_id: opportunityId,
              user_id: volunteer.userId,
              date: input.date,
              hours: input.hours
            })
          )
          return row
        }))
        return yield* views.hourLog(row)
      })

    const log = Effect.fn("Hours.log")(function*(input: LogHours) {
      return yield* requireCommunityMember("log volunteering hours")(record(input))
    })

    const reviewedEvent = (row: HourLogRow, reviewer: Actor, organisation: OrganisationRow) =>
      new DomainEvents.VolHoursReviewed({
        hour_log_id: row.id,
        organisation_id: row.organisation_id,
        user_id: row.user_id,
        hours: row.hours,
        status: row.status,
        payment_status: row.payment_status,
        reviewed_by: reviewer.userId,
        organisation_name: organisation.name
      })

    /** Pays what an approval owes (step 2 and 3 above); a log that owes nothing is returned as it is. */
    const settlePayment = (row: HourLogRow, organisation: OrganisationRow) => {
      if (!owesPayment(row)) return Effect.succeed(row)
      const id = row.id
      return ledger.payFromOrganisation({
        organisationId: row.organisation_id,
        userId: row.user_id,
        cents: toCents(row.hours),
        description: `Volunteering for ${organisation.name} on ${row.date}`,
        key: autoPayKey(id),
        createdBy: row.reviewed_by
      }).pipe(
        Effect.matchEffect({
          onSuccess: (posted) => repo.recordPaid(id, posted.transactionId),
          // The hash of the move is fixed by the log itself, so a key conflict is a bug, not an answer.
          onFailure: (error) => error instanceof InsufficientBalance ? repo.recordInsufficient(id) : Effect.die(error)
        }),
        Effect.flatMap(orCurrent(id))
      )
    }

    const approve = (row: HourLogRow, reviewer: Actor, organisation: OrganisationRow) =>
      Effect.gen(function*() {
        if (row.status === "declined") return yield* alreadyReviewed("declined")
        let current = row
        if (row.status === "pending") {
          // With the community's organisation wallets switched off (module `org_wallets`), nothing is auto-paid.
          const autoPay = organisation.auto_pay_enabled && (yield* CurrentTenant).isModuleOn("org_wallets")
          const approved = yield* db.transaction(Effect.gen(function*() {
            const approved = yield* repo.approve(row.id, reviewer.userId, autoPay)
            if (Option.isSome(approved)) {
              yield* outbox.append(reviewedEvent(approved.value, reviewer, organisation))
            }
            return approved
          }))
          current = yield* orCurrent(row.id)(approved)
          if (current.status === "declined") return yield* alreadyReviewed("declined")
        }
        return yield* settlePayment(current, organisation)
      })

    const decline = (row: HourLogRow, reviewer: Actor, organisation: OrganisationRow) =>
      Effect.gen(function*() {
        if (row.status === "approved") return yield* alreadyReviewed("approved")
        if (row.status === "declined") return row
        const declined = yield* db.transaction(Effect.gen(function*() {
          const declined = yield* repo.decline(row.id, reviewer.userId)
          if (Option.isSome(declined)) yield* outbox.append(reviewedEvent(declined.value, reviewer, organisation))
          return declined
        }))
        const current = yield* orCurrent(row.id)(declined)
        if (current.status === "approved") return yield* alreadyReviewed("approved")
        return current
      })

    const review = Effect.fn("Hours.review")(function*(id: HourLogId, decision: ReviewDecision) {
      const row = yield* find(id)
      return yield* access.change(row.organisation_id)(Effect.gen(function*() {
        const { actor, organisation } = yield* OrganisationManager
        yield* requireNotOwn(row.user_id, actor, "hours")
        const current = decision === "approved"
          ? yield* approve(row, actor, organisation)
          : yield* decline(row, actor, organisation)
        return yield* views.hourLog(current)
      }))
    })

    /** One statement for the page, then one per relation (members, organisations, opportunities). */
    const mine = Effect.fn("Hours.mine")(function*(params: VolunteeringPageParams) {
      const actor = yield* CurrentUser
      return yield* volunteeringPage(params, (page) => repo.byUser(actor.userId, page), views.hourLogs)
    })

    return { log, review, mine } as const
  })
}) {}
