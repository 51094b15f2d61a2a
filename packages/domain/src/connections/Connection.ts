import { Schema } from "effect"
import { CursorParam, PerPageParam } from "../http/Cursor.js"
import { PathId, RecordId } from "../http/Ids.js"
import { UserId } from "../identity/User.js"
import { UserSummary } from "../identity/UserSummary.js"

export const ConnectionId = RecordId.pipe(Schema.brand("ConnectionId"))
export type ConnectionId = typeof ConnectionId.Type

/** `pending` until the target accepts; a declined request is deleted (decisions D14a). */
export const ConnectionStatus = Schema.Literal("pending", "accepted")
export type ConnectionStatus = typeof ConnectionStatus.Type

/** Who asked, seen from the caller: `outgoing` the caller asked, `incoming` the other member did. */
export const ConnectionDirection = Schema.Literal("incoming", "outgoing")
export type ConnectionDirection = typeof ConnectionDirection.Type

/** A connection (or a request for one) between the caller and another member, as the caller sees it. */
export class Connection extends Schema.Class<Connection>("Connection")({
  id: ConnectionId,
  status: ConnectionStatus,
  direction: ConnectionDirection.annotations({
    description: "`outgoing` when the caller asked, `incoming` when the other member did"
  }),
  user: UserSummary.annotations({ description: "The other member" }),
  requester_id: UserId.annotations({ description: "Who asked" }),
  target_id: UserId.annotations({ description: "Who was asked; only they may accept or decline" }),
  created_at: Schema.DateTimeUtc,
  accepted_at: Schema.NullOr(Schema.DateTimeUtc).annotations({ description: "Null while pending" })
}) {}

/** `POST /api/v2/connections`. */
export const RequestConnection = Schema.Struct({
  user_id: RecordId.annotations({ description: "The member of this community the caller asks to connect with" })
})
export type RequestConnection = typeof RequestConnection.Type

/** `POST /api/v2/connections/{id}/decline`: the request is gone. */
export const ConnectionDeclined = Schema.Struct({ id: ConnectionId, declined: Schema.Literal(true) })
export type ConnectionDeclined = typeof ConnectionDeclined.Type

/** `DELETE /api/v2/connections/{id}`: the request is withdrawn, or the connection ended. */
export const ConnectionDeleted = Schema.Struct({ id: ConnectionId, deleted: Schema.Literal(true) })
export type ConnectionDeleted = typeof ConnectionDeleted.Type

export const ConnectionIdPath = Schema.Struct({ id: PathId(ConnectionId) })

export const CONNECTIONS_PER_PAGE_DEFAULT = 20
export const CONNECTIONS_PER_PAGE_MAX = 100

/** `GET /api/v2/connections`: newest first. */
export const ListConnectionsParams = Schema.Struct({
  status: Schema.optional(ConnectionStatus).annotations({
    description: "`accepted` (the default): the caller's connections; `pending`: requests to and from the caller"
  }),
  cursor: Schema.optional(CursorParam(RecordId)),
  per_page: Schema.optional(PerPageParam(CONNECTIONS_PER_PAGE_MAX)).annotations({
    description: `Default ${CONNECTIONS_PER_PAGE_DEFAULT}`
  })
})
export type ListConnectionsParams = typeof ListConnectionsParams.Type
