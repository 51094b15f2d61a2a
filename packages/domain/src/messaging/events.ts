import { Schema } from "effect"

/**
 * A member sent another a direct message. Carries the message itself (subject and whole body): the recipient's
 * notification shows its start, and partners' `message.sent` webhooks push it whole.
 */
export class MessageSent extends Schema.TaggedClass<MessageSent>()("MessageSent", {
  message_id: Schema.Number,
  thread_id: Schema.Number,
  sender_id: Schema.Number,
  recipient_id: Schema.Number,
  subject: Schema.NullOr(Schema.String),
  body: Schema.String
}) {}
