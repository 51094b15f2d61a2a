import {
  AlreadyExists,
  type CreateReview,
  DomainEvents,
  Review,
  type ReviewTargetPath,
  type UserSummary,
  ValidationFailed,
  type VolunteeringPageParams
} from "@timebank/domain"
import { DateTime, Effect, Option } from "effect"
import { ProfileService } from "../identity/ProfileService.js"
import { UserSummaries } from "../identity/UserSummaries.js"
import { Outbox } from "../platform/Outbox.js"
import { CommunityMember, requireCommunityMember } from "../platform/Policy.js"
import { TenantSql } from "../platform/TenantSql.js"
import { OrganisationAccess } from "./OrganisationPolicy.js"
import { OrganisationRepo } from "./OrganisationRepo.js"
import { ReviewRepo, type ReviewRow, type ReviewTarget } from "./ReviewRepo.js"
import { volunteeringPage } from "./VolunteeringPage.js"
import { memberOf } from "./VolunteeringViews.js"

export const reviewAlreadyExists = () =>
  new AlreadyExists({ message: "You have already reviewed this", field: "target_id" })

export const federatedReviewExists = () =>
  new AlreadyExists({ message: "This reviewer has already reviewed this member", field: "member_id" })

export const toReview = (row: ReviewRow, reviewer: UserSummary | null) =>
  Review.make({
    id: row.id,
    reviewer_id: row.reviewer_id,
    reviewer,
    ...(row.is_federated && row.federation_partner_id !== null
      ? { federated_reviewer: { name: row.reviewer_name ?? "", partner_id: row.federation_partner_id } }
      : {}),
    target_type: row.target_type,
    target_id: row.target_id,
    rating: row.rating,
    comment: row.comment,
    approved: row.approved,
    created_at: DateTime.unsafeFromDate(row.created_at)
  })

/** Reviews of organisations and members (spec "Review"); the contract gates their routes on `volunteering`. */
export class ReviewsService extends Effect.Service<ReviewsService>()("ReviewsService", {
  dependencies: [
    ReviewRepo.Default,
    OrganisationAccess.Default,
    OrganisationRepo.Default,
    ProfileService.Default,
    UserSummaries.Default,
    Outbox.Default,
    TenantSql.Default
  ],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const repo = yield* ReviewRepo
    const organisations = yield* OrganisationAccess
    const organisationRepo = yield* OrganisationRepo
    const profiles = yield* ProfileService
    const users = yield* UserSummaries
    const outbox = yield* Outbox

    /**
     * The target exists for the public: an active (or legacy `approved`) organisation, or a member, of this
     * community; anything else is 404.
     */
    const requireTarget = (target: ReviewTarget) =>
      target.type === "organization"
        ? Effect.asVoid(organisations.visible(target.id))
        : Effect.asVoid(profiles.publicProfile(target.id))

    /**
     * {@link requireTarget} for a new review, with what its event carries: the target's name, and who is told of
     * the review (the reviewed member, or the organisation's owners), never the reviewer.
     */
    const describeTarget = (target: ReviewTarget, reviewerId: number) =>
      Effect.gen(function*() {
        if (target.type === "organization") {
          const [organisation, owners] = yield* Effect.all([
            organisations.visible(target.id),
            organisationRepo.ownerIds(target.id)
          ], { concurrency: 2 })
          return { name: organisation.name, notify: owners.filter((id) => id !== reviewerId) }
        }
        const member = yield* profiles.publicProfile(target.id)
        return {
          name: `${member.first_name} ${member.last_name}`.trim(),
          notify: target.id === reviewerId ? [] : [target.id]
        }
      })

    /** A federated review has no local reviewer: its `federated_reviewer` names the partner's member. */
    const views = (rows: ReadonlyArray<ReviewRow>) =>
      Effect.map(
        users.byIds(rows.flatMap((r) => r.reviewer_id === null ? [] : [r.reviewer_id])),
        (reviewers) =>
          rows.map((row) => toReview(row, row.reviewer_id === null ? null : memberOf(reviewers, row.reviewer_id)))
      )

    const create = Effect.fn("Reviews.create")(
      function*(input: CreateReview) {
        const reviewer = yield* CommunityMember
        const target: ReviewTarget = { type: input.target_type, id: input.target_id }
        if (target.type === "user" && target.id === reviewer.userId) {
          return yield* ValidationFailed.field("target_id", "you cannot review yourself")
        }
        const described = yield* describeTarget(target, reviewer.userId)
        if (yield* repo.exists(reviewer.userId, target)) return yield* reviewAlreadyExists()
        const row = yield* db.transaction(Effect.gen(function*() {
          const inserted = yield* repo.insert({
            reviewerId: reviewer.userId,
            target,
            rating: input.rating,
            comment: input.comment
          })
          if (Option.isNone(inserted)) return yield* reviewAlreadyExists()
          yield* outbox.append(
            new DomainEvents.ReviewCreated({
              review_id: inserted.value.id,
              reviewer_id: reviewer.userId,
              target_type: target.type,
              target_id: target.id,
              rating: inserted.value.rating,
              target_name: described.name,
              notify_user_ids: described.notify
            })
          )
          return inserted.value
        }))
        return (yield* views([row]))[0]!
      },
      requireCommunityMember("write reviews")
    )

    /**
     * A partner community's member reviews one of our members (federation, decisions D13a): stored as a federated
     * review, published at once, and the member is told. One per partner's reviewer and member (409 otherwise).
     * The caller (federation) checked that the member may be reviewed by partners (opted in).
     */
    const createFederated = Effect.fn("Reviews.createFederated")(function*(input: {
      readonly partnerId: number
      readonly partnerName: string
      readonly memberId: number
      readonly rating: number
      readonly comment: string
      readonly reviewer: { readonly name: string; readonly externalId: string }
    }) {
      const target: ReviewTarget = { type: "user", id: input.memberId }
      const described = yield* describeTarget(target, 0)
      const reviewerName = `${input.reviewer.name} (${input.partnerName})`
      const row = yield* db.transaction(Effect.gen(function*() {
        const inserted = yield* repo.insertFederated({
          partnerId: input.partnerId,
          reviewerName: input.reviewer.name,
          reviewerExternalId: input.reviewer.externalId,
          memberId: input.memberId,
          rating: input.rating,
          comment: input.comment
        })
        if (Option.isNone(inserted)) return yield* federatedReviewExists()
        yield* outbox.append(
          new DomainEvents.ReviewCreated({
            review_id: inserted.value.id,
            reviewer_id: null,
            reviewer_name: reviewerName,
            target_type: target.type,
            target_id: target.id,
            rating: inserted.value.rating,
            target_name: described.name,
            notify_user_ids: described.notify
          })
        )
        return inserted.value
      }))
      return toReview(row, null)
    })

    /** One query for the page and one for its reviewers. */
    const list = Effect.fn("Reviews.list")(function*(path: ReviewTargetPath, params: VolunteeringPageParams) {
      const target: ReviewTarget = { type: path.type, id: path.id }
      yield* requireTarget(target)
      return yield* volunteeringPage(params, (page) => repo.page({ ...page, target }), views)
    })

    return { create, createFederated, list } as const
  })
}) {}
