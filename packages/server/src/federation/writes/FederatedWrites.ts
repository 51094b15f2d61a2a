import {
  type CreateFederatedMessage,
  type CreateFederatedReview,
  DomainEvents,
  FederatedMessage,
  FederatedMessageSent,
  type FederatedWritesListParams,
  FEDERATION_WRITES_PER_PAGE_DEFAULT,
  FederationCaller,
  FederationReview,
  NotFound,
  PermissionDenied
} from "@timebank/domain"
import { DateTime, Effect, Option } from "effect"
import { SharedMembers } from "../../identity/SharedMembers.js"
import { Outbox } from "../../platform/Outbox.js"
import { idCursorPage } from "../../platform/Paging.js"
import { CommunityMember, requireCommunityMember } from "../../platform/Policy.js"
import { TenantSql } from "../../platform/TenantSql.js"
import { ReviewsService } from "../../volunteering/ReviewsService.js"
import { PartnerDirectory } from "../partners/PartnerDirectory.js"
import { FederatedMessageRepo, type FederatedMessageRow } from "./FederatedMessageRepo.js"

const memberNotFound = (field: string) => new NotFound({ message: "Member not found", field })

const messageView = (row: FederatedMessageRow) =>
  FederatedMessage.make({
    id: row.id,
    partner: { id: row.partner_id, name: row.partner_name },
    sender: { name: row.sender_name, external_id: row.sender_external_id },
    subject: row.subject,
    body: row.body,
    read_at: row.read_at === null ? null : DateTime.unsafeFromDate(row.read_at),
    created_at: DateTime.unsafeFromDate(row.created_at)
  })

/**
 * Reviews and messages partners' members write to ours (decisions D13, D13a), and our members' reading of those
 * messages. Partner routes run in the community of the calling key (`CurrentTenant` from it); the recipient must
 * be an active member who opted in to federation, else 404 — another community's member, or one who did not opt
 * in, is not known to partners.
 */
export class FederatedWrites extends Effect.Service<FederatedWrites>()("FederatedWrites", {
  dependencies: [
    FederatedMessageRepo.Default,
    PartnerDirectory.Default,
    SharedMembers.Default,
    ReviewsService.Default,
    Outbox.Default,
    TenantSql.Default
  ],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const repo = yield* FederatedMessageRepo
    const partners = yield* PartnerDirectory
    const members = yield* SharedMembers
    const reviews = yield* ReviewsService
    const outbox = yield* Outbox

    /** The caller's partner, active (the access policy checked it; it may have changed since). */
    const activePartner = Effect.gen(function*() {
      const caller = yield* FederationCaller
      const partner = caller.partnerId === null ? Option.none() : yield* partners.find(caller.partnerId)
      if (Option.isNone(partner) || partner.value.status !== "active") {
        return yield* new PermissionDenied({ message: "Writes need a key bound to an active partner" })
      }
      return partner.value
    })

    const sharedMember = (id: number, field: string) =>
      Effect.flatMap(
        members.find(id),
        Option.match({ onNone: () => Effect.fail(memberNotFound(field)), onSome: Effect.succeed })
      )

    const review = Effect.fn("FederatedWrites.review")(function*(input: CreateFederatedReview) {
      const partner = yield* activePartner
      yield* sharedMember(input.member_id, "member_id")
      const created = yield* reviews.createFederated({
        partnerId: partner.id,
        partnerName: partner.name,
        memberId: input.member_id,
        rating: input.rating,
        comment: input.comment,
        reviewer: { name: input.reviewer.name, externalId: input.reviewer.external_id }
      })
      return FederationReview.make({
        id: created.id,
        member_id: input.member_id as FederationReview["member_id"],
        rating: created.rating,
        comment: created.comment,
        is_federated: true,
        reviewer: { id: null, name: input.reviewer.name },
        created_at: created.created_at
      })
    })

    const message = Effect.fn("FederatedWrites.message")(function*(input: CreateFederatedMessage) {
      const partner = yield* activePartner
      const recipient = yield* sharedMember(input.recipient_id, "recipient_id")
      const subject = input.subject === undefined || input.subject === null || input.subject === ""
        ? null
        : input.subject
      const row = yield* db.transaction(Effect.gen(function*() {
        const row = yield* repo.insert({
          partnerId: partner.id,
          recipientId: recipient.id,
          subject,
          body: input.body,
          senderName: input.sender.name,
          senderExternalId: input.sender.external_id
        })
        yield* outbox.append(
          new DomainEvents.FederatedMessageReceived({
            message_id: row.id,
            partner_id: partner.id,
            partner_name: partner.name,
            recipient_id: recipient.id,
            sender_name: input.sender.name,
            sender_external_id: input.sender.external_id,
            subject,
            body: input.body
          })
        )
        return row
      }))
      return FederatedMessageSent.make({
        id: row.id,
        recipient_id: recipient.id,
        subject,
        body: input.body,
        sender: input.sender,
        created_at: DateTime.unsafeFromDate(row.created_at)
      })
    })

    /** The caller's messages from partners' members, newest first. */
    const inbox = Effect.fn("FederatedWrites.inbox")(
      function*(params: FederatedWritesListParams) {
        const me = yield* CommunityMember
        const perPage = params.per_page ?? FEDERATION_WRITES_PER_PAGE_DEFAULT
        const rows = yield* repo.page(me.userId, { before: params.cursor, limit: perPage + 1 })
        return yield* idCursorPage(rows, perPage, (page) => Effect.succeed(page.map(messageView)))
      },
      requireCommunityMember("read messages")
    )

    const markRead = Effect.fn("FederatedWrites.markRead")(
      function*(id: number) {
        const me = yield* CommunityMember
        const row = yield* repo.markRead(me.userId, id)
        if (Option.isNone(row)) return yield* NotFound.of("Message")
        return messageView(row.value)
      },
      requireCommunityMember("read messages")
    )

    return { review, message, inbox, markRead } as const
  })
}) {}
