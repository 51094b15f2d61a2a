import { Schema } from "effect"

/** Longest webhook `id` a partner may send (our own are UUIDs). */
export const WEBHOOK_ID_MAX = 200
export const WEBHOOK_EVENT_MAX = 100
/** The most JSON one webhook's `data` may hold: one partner cannot flood a community with huge records. */
export const WEBHOOK_DATA_MAX_BYTES = 64 * 1024

/** UTF-8 bytes of a value written as JSON. */
export const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value) ?? "", "utf8")

/** A JSON object (not an array), kept as the partner sent it. */
export const JsonObject = Schema.Record({ key: Schema.String, value: Schema.Unknown }).pipe(
  Schema.filter((value) => !Array.isArray(value) || "must be an object")
).annotations({ description: "A JSON object" })

const WebhookData = JsonObject.pipe(
  Schema.filter((data) =>
    jsonBytes(data) <= WEBHOOK_DATA_MAX_BYTES || `must be at most ${WEBHOOK_DATA_MAX_BYTES} bytes of JSON`
  )
)

/**
 * `POST /api/v1/federation/webhooks/receive`: the body our own outbound webhooks carry (decisions D13), from a
 * partner. `id` deduplicates per key; `data` is the event's record.
 */
export const ReceivedWebhook = Schema.Struct({
  id: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(WEBHOOK_ID_MAX)).annotations({
    description: `The partner's id of this webhook, 1 to ${WEBHOOK_ID_MAX} characters; a repeat is a duplicate`
  }),
  event: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(WEBHOOK_EVENT_MAX)).annotations({
    description: "`transaction.cancelled`, `listing.created|updated`, `event.created|updated`, " +
      "`group.created|updated|deleted`, `review.created`, `member.opted_out`; others are received and not handled"
  }),
  tenant: Schema.optional(Schema.Unknown).annotations({ description: "The sender's community; not used" }),
  occurred_at: Schema.optional(Schema.NullOr(Schema.DateTimeUtc)).annotations({
    description: "When it happened at the partner; an older record update than the one stored is ignored"
  }),
  data: WebhookData.annotations({
    description: `The event's record, at most ${WEBHOOK_DATA_MAX_BYTES} bytes of JSON`
  })
})
export type ReceivedWebhook = typeof ReceivedWebhook.Type

/** A first receipt: whether this service acted on the event. */
export const WebhookHandled = Schema.Struct({
  received: Schema.Literal(true),
  handled: Schema.Boolean.annotations({
    description: "False for events this service does not act on, or that name nothing it knows"
  })
})

/** A webhook `id` this key already sent: nothing is done again. */
export const WebhookDuplicate = Schema.Struct({
  received: Schema.Literal(true),
  duplicate: Schema.Literal(true)
})

export const WebhookReceipt = Schema.Union(WebhookHandled, WebhookDuplicate)
export type WebhookReceipt = typeof WebhookReceipt.Type

export const RECEIVE_DESCRIPTION =
  "A partner's webhook, deduplicated per key on `id`: a repeat answers `duplicate: true` and does nothing. " +
  "`transaction.cancelled` (`data.external_id`) refunds that credit of the partner once (unknown: `handled: " +
  "false`; a member who cannot pay it back: 422 `INSUFFICIENT_BALANCE`, not received, send it again later). " +
  "`listing.created|updated`, `event.created|updated`, `group.created|updated` and `review.created` store the " +
  "partner's record (`data.id`; an update replaces the keys it sends; a listing no longer `active` or a group no " +
  "longer public is dropped), `group.deleted` (`data.id`) and `member.opted_out` (`data.member_id`) remove what " +
  "they name. A known event without its id is 422 on `data.<field>`. A key bound to no partner, and any other " +
  "event, is received with `handled: false`"
