import { Effect, Option, Schema } from "effect"
import { DbDate, DbInt, decodeFirst, decodeRows, decodeSingle } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"

/** A row of `polls`. */
export const PollRow = Schema.Struct({
  id: DbInt,
  user_id: DbInt,
  question: Schema.String,
  created_at: DbDate
})
export type PollRow = typeof PollRow.Type

/** An option of a poll with its vote count. */
export const PollOptionRow = Schema.Struct({ id: DbInt, label: Schema.String, votes: Schema.Int })
export type PollOptionRow = typeof PollOptionRow.Type

const Vote = Schema.Struct({ option_id: DbInt })
const Id = Schema.Struct({ id: DbInt })

/** Polls, their options and votes in the current tenant. */
export class PollRepo extends Effect.Service<PollRepo>()("PollRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db
    const columns = sql.literal("id, user_id, question, created_at")

    return {
      findById: (id: number) =>
        db.query((tenantId) =>
          sql`SELECT ${columns} FROM polls WHERE tenant_id = ${tenantId} AND id = ${id}`.pipe(decodeFirst(PollRow))
        ),

      /** Writes the poll and its options (in the given order); call inside a transaction. */
      insert: (userId: number, question: string, labels: ReadonlyArray<string>) =>
        db.query((tenantId) =>
          Effect.gen(function*() {
            const poll = yield* sql`
              INSERT INTO polls (tenant_id, user_id, question) VALUES (${tenantId}, ${userId}, ${question})
              RETURNING ${columns}`.pipe(decodeSingle(PollRow))
            yield* sql`INSERT INTO poll_options ${
              sql.insert(labels.map((label, position) => ({ tenant_id: tenantId, poll_id: poll.id, label, position })))
            }`
            return poll
          })
        ),

      /** The options in order with their votes: one grouped query (index `poll_options (poll_id, position)`). */
      options: (pollId: number) =>
        db.query((tenantId) =>
          sql`
            SELECT o.id, o.label, count(v.id)::int AS votes
            FROM poll_options o LEFT JOIN poll_votes v ON v.option_id = o.id
            WHERE o.tenant_id = ${tenantId} AND o.poll_id = ${pollId}
            GROUP BY o.id ORDER BY o.position`.pipe(decodeRows(PollOptionRow))
        ),

      /** The option the user voted for, if any. */
      voteOf: (pollId: number, userId: number) =>
        db.query((tenantId) =>
          sql`SELECT option_id FROM poll_votes
            WHERE tenant_id = ${tenantId} AND poll_id = ${pollId} AND user_id = ${userId}`.pipe(
            decodeFirst(Vote),
            Effect.map(Option.map((vote) => vote.option_id))
          )
        ),

      /**
       * One vote per member per poll: a new vote replaces the old one. Votes only for an option of `pollId`;
       * false when `optionId` is not one of them.
       */
      vote: (pollId: number, optionId: number, userId: number) =>
        db.query((tenantId) =>
          sql`
            INSERT INTO poll_votes (tenant_id, poll_id, option_id, user_id)
            SELECT ${tenantId}, ${pollId}, o.id, ${userId} FROM poll_options o
            WHERE o.tenant_id = ${tenantId} AND o.poll_id = ${pollId} AND o.id = ${optionId}
            ON CONFLICT (poll_id, user_id) DO UPDATE SET option_id = EXCLUDED.option_id, created_at = now()
            RETURNING option_id`.pipe(Effect.map((rows) => rows.length > 0))
        ),

      /** Which of `ids` are polls of this tenant owned by `userId`. */
      ownedIds: (ids: ReadonlyArray<number>, userId: number) =>
        db.query((tenantId) =>
          sql`SELECT id FROM polls
            WHERE tenant_id = ${tenantId} AND user_id = ${userId} AND id IN ${sql.in(ids)}`.pipe(
            decodeRows(Id),
            Effect.map((rows) => new Set(rows.map((r) => r.id)))
          )
        )
    } as const
  })
}) {}
