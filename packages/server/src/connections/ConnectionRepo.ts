import { ConnectionId, ConnectionStatus, UserId } from "@timebank/domain"
import { Effect, Schema } from "effect"
import { DbDate, dbId, decodeFirst, decodeRows } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"

/** A row of `connections`. */
export const ConnectionRow = Schema.Struct({
  id: dbId(ConnectionId),
  requester_id: dbId(UserId),
  target_id: dbId(UserId),
  status: ConnectionStatus,
  created_at: DbDate,
  accepted_at: Schema.NullOr(DbDate)
})
export type ConnectionRow = typeof ConnectionRow.Type

const firstConnection = decodeFirst(ConnectionRow)
const connections = decodeRows(ConnectionRow)
const removed = decodeFirst(Schema.Struct({ id: dbId(ConnectionId) }))

/** Which of a member's connections a page reads: newest first, older than `before`, `limit` rows at most. */
export interface ConnectionPageQuery {
  readonly userId: number
  readonly status: ConnectionStatus
  readonly before?: number | undefined
  readonly limit: number
}

/** Connections between members of the current tenant. */
export class ConnectionRepo extends Effect.Service<ConnectionRepo>()("ConnectionRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db
    const columns = sql.literal("id, requester_id, target_id, status, created_at, accepted_at")

    /** One side of a member's connections, on its own index (`connections_requester` / `connections_target`). */
    const side = (tenantId: number, column: "requester_id" | "target_id", q: ConnectionPageQuery) =>
      sql`SELECT ${columns} FROM connections
          WHERE tenant_id = ${tenantId} AND ${sql(column)} = ${q.userId} AND status = ${q.status}
            ${q.before === undefined ? sql`` : sql`AND id < ${q.before}`}
          ORDER BY id DESC LIMIT ${q.limit}`

    return {
      findById: (id: number) =>
        db.query((tenantId) =>
          sql`SELECT ${columns} FROM connections WHERE tenant_id = ${tenantId} AND id = ${id}`.pipe(firstConnection)
        ),

      /**
       * A pending request; none when the pair already has a connection, whoever asked (the unique index on the
       * unordered pair decides, races included).
       */
      insert: (requesterId: number, targetId: number) =>
        db.query((tenantId) =>
          sql`
            INSERT INTO connections (tenant_id, requester_id, target_id, status)
            VALUES (${tenantId}, ${requesterId}, ${targetId}, 'pending')
            ON CONFLICT DO NOTHING
            RETURNING ${columns}`.pipe(firstConnection)
        ),

      /** Accepts the request if it is still pending; none otherwise. */
      accept: (id: number) =>
        db.query((tenantId) =>
          sql`
            UPDATE connections SET status = 'accepted', accepted_at = now()
            WHERE tenant_id = ${tenantId} AND id = ${id} AND status = 'pending'
            RETURNING ${columns}`.pipe(firstConnection)
        ),

      /** Deletes the connection, only while it is pending when `pendingOnly`; none when nothing was deleted. */
      remove: (id: number, options: { readonly pendingOnly: boolean }) =>
        db.query((tenantId) =>
          sql`
            DELETE FROM connections
            WHERE tenant_id = ${tenantId} AND id = ${id}
              ${options.pendingOnly ? sql`AND status = 'pending'` : sql``}
            RETURNING id`.pipe(removed)
        ),

      /**
       * The member's connections of one status from both sides, newest first: each side reads its own index and
       * stops after `limit` rows, then the two short lists merge (a member is never on both sides of one row).
       */
      page: (q: ConnectionPageQuery) =>
        db.query((tenantId) =>
          sql`
            SELECT * FROM (
              (${side(tenantId, "requester_id", q)})
              UNION ALL
              (${side(tenantId, "target_id", q)})
            ) AS c
            ORDER BY id DESC LIMIT ${q.limit}`.pipe(connections)
        )
    } as const
  })
}) {}
