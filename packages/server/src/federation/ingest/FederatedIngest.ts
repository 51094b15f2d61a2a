import { type CurrentTenant, type DomainEvent, DomainEvents, type FederatedRecordKind } from "@timebank/domain"
import { Effect, Option } from "effect"
import { Outbox } from "../../platform/Outbox.js"
import { FederatedRecordsRepo } from "./FederatedRecordsRepo.js"
import { recordFields } from "./IngestShapes.js"

/** One change a partner's webhook makes to the records it shared (decisions D13a "Ingest"). */
export type IngestAction =
  | {
    readonly _tag: "Upsert"
    readonly kind: FederatedRecordKind
    readonly remoteId: string
    readonly remoteMemberId: string | null
    readonly data: Readonly<Record<string, unknown>>
    readonly occurredAt: Date | null
  }
  /** A listing or group withdrawn by an update, or a group deleted. */
  | { readonly _tag: "Remove"; readonly kind: FederatedRecordKind; readonly remoteId: string }
  | { readonly _tag: "RemoveMember"; readonly remoteMemberId: string }

/**
 * Applies partners' shared records to the current tenant: stores and replaces them, raising
 * `FederatedListingReceived` / `FederatedReviewReceived` in the same transaction, and removes what `group.deleted`
 * and `member.opted_out` name. Run inside the receipt's transaction: a failure leaves the webhook unreceived.
 */
export class FederatedIngest extends Effect.Service<FederatedIngest>()("FederatedIngest", {
  dependencies: [FederatedRecordsRepo.Default, Outbox.Default],
  effect: Effect.gen(function*() {
    const repo = yield* FederatedRecordsRepo
    const outbox = yield* Outbox

    const received = (
      partnerId: number,
      action: Extract<IngestAction, { _tag: "Upsert" }>,
      record: { readonly id: number; readonly created: boolean }
    ): Option.Option<DomainEvent> => {
      const common = {
        partner_id: partnerId,
        record_id: record.id,
        remote_id: action.remoteId,
        remote_member_id: action.remoteMemberId,
        created: record.created
      }
      const fields = recordFields(action.kind, action.data)
      switch (action.kind) {
        case "listing":
          return Option.some(new DomainEvents.FederatedListingReceived({ ...common, title: fields.text("title") }))
        case "review":
          return Option.some(new DomainEvents.FederatedReviewReceived({ ...common, rating: fields.number("rating") }))
        default:
          return Option.none()
      }
    }

    /** Applies `action` for the partner (every action a partner may take is handled, also one naming nothing). */
    const apply = (partnerId: number, action: IngestAction): Effect.Effect<void, never, CurrentTenant> => {
      switch (action._tag) {
        case "Upsert":
          return Effect.flatMap(
            repo.upsert({ ...action, partnerId }),
            Option.match({
              // An update older than the stored one: received and deliberately ignored.
              onNone: () => Effect.void,
              onSome: (record) =>
                Option.match(received(partnerId, action, record), { onNone: () => Effect.void, onSome: outbox.append })
            })
          )
        case "Remove":
          return Effect.asVoid(repo.remove(partnerId, action.kind, action.remoteId))
        case "RemoveMember":
          return Effect.asVoid(repo.removeMember(partnerId, action.remoteMemberId))
      }
    }

    return { apply } as const
  })
}) {}
