import { type ReceivedWebhook, ValidationFailed } from "@timebank/domain"
import { DateTime, Either } from "effect"
import type { IngestAction } from "../ingest/FederatedIngest.js"
import {
  cancelledTransactionOf,
  deletedGroupOf,
  INGESTED,
  optedOutMemberOf,
  recordIdsOf,
  REMOTE_ID_MAX,
  withdrawn
} from "../ingest/IngestShapes.js"

/** What a received webhook asks of this service (decisions D13, D13a). */
export type WebhookPlan =
  | { readonly _tag: "Ingest"; readonly action: IngestAction }
  | { readonly _tag: "Cancel"; readonly externalId: string }
  /** An event this service does not act on: received, `handled: false`. */
  | { readonly _tag: "Ignore" }

const ID_RULE = `must be a non-empty string of at most ${REMOTE_ID_MAX} characters, or an integer`

const invalid = (field: string) => Either.left(ValidationFailed.field(`data.${field}`, ID_RULE))

/**
 * Reads a webhook into what to do, or 422 on the `data` field a known event lacks (retrying it cannot help, and a
 * partner's bug should be loud). Unknown events are ignored, whatever their data.
 */
export const planOf = (webhook: ReceivedWebhook): Either.Either<WebhookPlan, ValidationFailed> => {
  const { data, event } = webhook
  const kind = INGESTED[event]
  if (kind !== undefined) {
    const ids = recordIdsOf(kind, data)
    if (ids === null) return invalid("id")
    if (withdrawn(kind, data)) {
      return Either.right({ _tag: "Ingest", action: { _tag: "Remove", kind, remoteId: ids.remoteId } })
    }
    const occurredAt = webhook.occurred_at == null ? null : DateTime.toDate(webhook.occurred_at)
    return Either.right({ _tag: "Ingest", action: { _tag: "Upsert", kind, ...ids, data, occurredAt } })
  }
  switch (event) {
    case "group.deleted": {
      const remoteId = deletedGroupOf(data)
      return remoteId === null
        ? invalid("id")
        : Either.right({ _tag: "Ingest", action: { _tag: "Remove", kind: "group", remoteId } })
    }
    case "member.opted_out": {
      const remoteMemberId = optedOutMemberOf(data)
      return remoteMemberId === null
        ? invalid("member_id")
        : Either.right({ _tag: "Ingest", action: { _tag: "RemoveMember", remoteMemberId } })
    }
    case "transaction.cancelled": {
      const externalId = cancelledTransactionOf(data)
      return externalId === null ? invalid("external_id") : Either.right({ _tag: "Cancel", externalId })
    }
    default:
      return Either.right({ _tag: "Ignore" })
  }
}
