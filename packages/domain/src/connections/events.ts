import { Schema } from "effect"

/** A member asked another to connect. */
export class ConnectionRequested extends Schema.TaggedClass<ConnectionRequested>()("ConnectionRequested", {
  connection_id: Schema.Number,
  requester_id: Schema.Number,
  target_id: Schema.Number
}) {}

/** The target of a request accepted it. */
export class ConnectionAccepted extends Schema.TaggedClass<ConnectionAccepted>()("ConnectionAccepted", {
  connection_id: Schema.Number,
  requester_id: Schema.Number,
  target_id: Schema.Number
}) {}
