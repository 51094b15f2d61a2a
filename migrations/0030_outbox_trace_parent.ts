import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The W3C `traceparent` of the span that recorded an outbox event, when that span was traced (null otherwise): the
 * subscribers' delivery spans link to it, so a request's trace leads to the bells, mails and webhooks it caused.
 * A nullable column without a default: adding it rewrites nothing.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE outbox_events ADD COLUMN trace_parent text`
})
