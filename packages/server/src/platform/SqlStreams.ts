import type { Statement } from "@effect/sql"
import { CurrentTenant, type TenantId } from "@timebank/domain"
import { Chunk, Effect, Schema, Stream } from "effect"

/**
 * Rows read through a database cursor (`statement.stream`: pg-cursor, 128 rows a fetch), decoded with `schema` a
 * chunk at a time, for answers too large to hold (CSV exports). Nothing is collected: a consumer that stops
 * pulling (a slow client) stops the reads. A row that does not decode, or a failing read, is a defect.
 */
export const streamRows = <A, I>(schema: Schema.Schema<A, I>) => {
  const decode = Schema.decodeUnknown(Schema.Array(schema))
  return (statement: Statement.Statement<unknown>): Stream.Stream<A> =>
    statement.stream.pipe(
      Stream.mapChunksEffect((chunk) =>
        Effect.map(Effect.orDie(decode(Chunk.toReadonlyArray(chunk))), (rows) => Chunk.unsafeFromArray(rows))
      ),
      Stream.orDie
    )
}

/**
 * A stream of the current tenant's rows: `f` gets the tenant id (every statement filters on it). Without
 * `DB_TENANT_RLS` row-level transactions, like every plain read: a cursor lives on its own reserved connection.
 */
export const tenantStream = <A>(f: (tenantId: TenantId) => Stream.Stream<A>): Stream.Stream<A, never, CurrentTenant> =>
  Stream.unwrap(Effect.map(CurrentTenant, (tenant) => f(tenant.id)))
