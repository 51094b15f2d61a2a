import type { AmountNotRepresentable, Cents, PartnerProtocol, ValidationIssue } from "@timebank/domain"
import type { Effect } from "effect"
import type { PartnerRecord } from "../partners/PartnerDirectory.js"

/**
 * One partner protocol (decisions D16): how we check a partner's configuration, send it a member's transfer in its
 * own wire format and read its answer, and diagnose the connection. Each protocol is one module that makes one of
 * these (`<Name>Protocol.ts`); {@link FederationProtocols} lists them, so a fifth protocol is one new file and one
 * line there. Inbound controllers (JSON:API, Credit Commons) are routes of their own, not part of this interface.
 */
export interface FederationProtocol {
  readonly name: PartnerProtocol
  /** The credential names the protocol needs (422 `credentials.<k>` when one is missing). */
  readonly requiredCredentials: ReadonlyArray<string>
  /** Names it also takes (Komunitin: `komunitin_public_keys`); any other name is 422 `credentials.<k>`. */
  readonly optionalCredentials: ReadonlyArray<string>
  /** What is wrong with a partner's settings (422 with the dotted field `settings.<k>`); none when it is fine. */
  readonly settingsIssues: (settings: Readonly<Record<string, unknown>>) => ReadonlyArray<ValidationIssue>
  /** What is wrong with a recipient in this protocol's form (422 field `recipient`), or undefined. */
  readonly recipientIssue: (recipient: string) => string | undefined
  /**
   * Everything that must hold before the member is debited: reads the partner's terms where the protocol needs
   * them (Komunitin's currency) and converts the amount to the partner's units, failing with
   * AMOUNT_NOT_REPRESENTABLE rather than rounding. A partner that cannot be read fails the transfer before any
   * money moves (`Unreachable`).
   */
  readonly prepare: (
    partner: PartnerContext,
    transfer: OutboundTransfer
  ) => Effect.Effect<PreparedTransfer, AmountNotRepresentable | PartnerUnreachable>
  /** Sends the prepared transfer: the protocol's call(s); never fails, the outcome says how it went. */
  readonly send: (
    partner: PartnerContext,
    transfer: OutboundTransfer,
    prepared: PreparedTransfer
  ) => Effect.Effect<TransferOutcome>
  /** The D16 checks that apply to this protocol, in D16's order; no side effects at the partner. */
  readonly diagnose: (partner: PartnerContext) => Effect.Effect<ReadonlyArray<DiagnoseCheck>>
  /** How our outbound webhooks reach this partner; undefined: the partner takes none (Komunitin, Credit Commons). */
  readonly webhook?: WebhookDialect
}

/** A protocol's form of our outbound webhooks (decisions D13, D16). */
export interface WebhookDialect {
  /** The body as this partner reads it: D13's body, plus what the protocol adds (TimeOverflow: `partner_id`). */
  readonly body: (
    partner: PartnerContext,
    d13Body: Readonly<Record<string, unknown>>
  ) => Readonly<Record<string, unknown>>
  /** Where webhooks go when the partner has no `webhook_url` (TimeOverflow's receive route); none: nowhere. */
  readonly defaultUrl?: (baseUrl: string) => string
  /** The headers of one delivery of `body` (the exact text sent) to `url`; undefined when credentials are missing. */
  readonly headers: (
    partner: PartnerContext,
    input: { readonly url: string; readonly body: string; readonly webhookId: string; readonly nowMillis: number }
  ) => Readonly<Record<string, string>> | undefined
}

/** A partner with its opened credentials (never log them, never put them in a response). */
export interface PartnerContext {
  readonly partner: PartnerRecord
  readonly credentials: Readonly<Record<string, string>>
  /** Our community: its id, slug and currency code. */
  readonly community: { readonly id: number; readonly slug: string; readonly currencyCode: string }
}

/** A member's transfer to a partner's member, as we record it before sending. */
export interface OutboundTransfer {
  /** Our id of the transfer, sent as the partner's idempotency key / transfer id. */
  readonly uuid: string
  readonly recipient: string
  readonly cents: Cents
  readonly description: string
  readonly sender: {
    readonly userId: number
    readonly name: string
    /** The sender's account code (`CODE0042`). */
    readonly accountCode: string
    /** The sender's account UUID. */
    readonly accountId: string
  }
}

/** What `prepare` worked out: the amount in the partner's units, as text, and what `send` needs of it. */
export interface PreparedTransfer {
  /** The amount in the partner's units, as it goes on the wire (`"5400"` seconds, `"100000"` units, `"1.5"`). */
  readonly remoteAmount: string
  readonly detail?: unknown
}

export type TransferOutcome =
  | { readonly _tag: "Completed"; readonly remoteId: string | null }
  | {
    readonly _tag: "Failed"
    readonly httpStatus: number | null
    /** The partner's answer quoted, or what happened instead (timeout, refused connection). */
    readonly detail: string
    /** The call went out and no answer came: the partner may have acted on it. */
    readonly outcomeUnknown: boolean
  }

/** A partner we could not read before moving money (its currency, say). */
export class PartnerUnreachable {
  readonly _tag = "PartnerUnreachable"
  constructor(readonly httpStatus: number | null, readonly detail: string) {}
}

export interface DiagnoseCheck {
  readonly name: DiagnoseCheckName
  readonly ok: boolean
  /** Quotes what the partner answered. */
  readonly detail: string
}

/** D16's checks, in its order. */
export const DIAGNOSE_CHECKS = [
  "reachability",
  "currency",
  "auth",
  "account",
  "hash_chain",
  "webhook",
  "clock_skew"
] as const
export type DiagnoseCheckName = typeof DIAGNOSE_CHECKS[number]
