import { FederationTransfer } from "@timebank/domain"
import { DateTime } from "effect"
import type { OutboundTransferRow } from "./OutboundTransfersRepo.js"

/** A member's transfer to a partner, as its list and its detail show it. */
export const outboundTransferView = (row: OutboundTransferRow) =>
  FederationTransfer.make({
    id: row.id,
    uuid: row.uuid,
    partner_id: row.partner_id,
    recipient: row.recipient,
    amount: row.amount,
    description: row.description,
    status: row.status,
    remote_id: row.remote_id,
    remote_amount: row.remote_amount,
    transaction_id: row.transaction_id,
    reversal_transaction_id: row.reversal_transaction_id,
    failure: row.failure,
    outcome_unknown: row.outcome_unknown,
    created_at: DateTime.unsafeFromDate(row.created_at),
    updated_at: DateTime.unsafeFromDate(row.updated_at)
  })
