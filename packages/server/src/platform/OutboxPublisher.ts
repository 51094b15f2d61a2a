import { Singleton } from "@effect/cluster"
import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Cause, Duration, Effect, Layer, Schedule } from "effect"
import { AppConfig } from "./AppConfig.js"
import type { OutboxEvent } from "./Outbox.js"
import { dieOnSqlError } from "./TenantSql.js"

/**
 * A consumer of domain events. It must be idempotent: delivery is at least once (a crash between handling an
 * event and recording the cursor hands the event over again).
 */
export interface OutboxSubscriber<R = never> {
  readonly name: string
  readonly handle: (event: OutboxEvent) => Effect.Effect<void, unknown, R>
}

export interface PublisherOptions {
  readonly pollInterval: Duration.DurationInput
  readonly batchSize: number
  /** Attempts per event before it is set aside as a dead letter so that later events are not held up forever. */
  readonly maxAttempts: number
  readonly retryBase: Duration.DurationInput
  readonly retryCap: Duration.DurationInput
}

export const defaultPublisherOptions: PublisherOptions = {
  pollInterval: "250 millis",
  batchSize: 100,
  maxAttempts: 10,
  retryBase: "200 millis",
  retryCap: "30 seconds"
}

/** Exponential backoff (base · 2ⁿ, capped) for `maxAttempts` attempts in all. */
export const retryPolicy = (options: Pick<PublisherOptions, "maxAttempts" | "retryBase" | "retryCap">) =>
  Schedule.exponential(options.retryBase).pipe(
    Schedule.union(Schedule.spaced(options.retryCap)),
    Schedule.intersect(Schedule.recurs(options.maxAttempts - 1))
  )

interface Cursor {
  readonly txId: string
  readonly eventId: number
}

interface EventRow {
  readonly id: string
  readonly tx_id: string
  readonly tenant_id: string | null
  readonly event_type: string
  readonly payload: unknown
  readonly created_at: Date
}

/**
 * Hands every committed outbox event, in commit order, to one subscriber, retrying each event with backoff before
 * moving on. Runs until interrupted. Each subscriber keeps its own cursor, so one failing subscriber delays only
 * itself.
 */
export const runSubscriber = <R>(
  subscriber: OutboxSubscriber<R>,
  options: PublisherOptions = defaultPublisherOptions
) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    yield* sql`INSERT INTO outbox_cursors (subscriber) VALUES (${subscriber.name}) ON CONFLICT DO NOTHING`
    const [saved] = yield* sql<{ tx_id: string; event_id: string }>`
      SELECT tx_id::text AS tx_id, event_id FROM outbox_cursors WHERE subscriber = ${subscriber.name}`
    // The cursor moves in memory after every delivered event and is saved once per batch (and when the publisher
    // stops), not once per event: a durable write per event could not keep up with a busy ledger. A crash
    // between saves hands at most one batch over again, which idempotent subscribers absorb.
    let cursor: Cursor = { txId: saved!.tx_id, eventId: Number(saved!.event_id) }
    let stored: Cursor = cursor

    // Only rows whose writing transactions precede every transaction still running: nothing can commit later
    // with a smaller (tx_id, id), so the cursor never skips an event.
    const nextBatch = () =>
      sql<EventRow>`
      SELECT id, tx_id::text AS tx_id, tenant_id, event_type, payload, created_at
      FROM outbox_events
      WHERE (tx_id, id) > (${cursor.txId}::xid8, ${cursor.eventId})
        AND tx_id < pg_snapshot_xmin(pg_current_snapshot())
      ORDER BY tx_id, id
      LIMIT ${options.batchSize}`

    const saveCursor = Effect.suspend((): Effect.Effect<void, SqlError> => {
      const current = cursor
      if (current === stored) return Effect.void
      return sql`UPDATE outbox_cursors SET tx_id = ${current.txId}::xid8, event_id = ${current.eventId}, updated_at = now()
          WHERE subscriber = ${subscriber.name}`.pipe(
        Effect.tap(() => {
          stored = current
        }),
        Effect.asVoid
      )
    })

    const deadLetter = (row: EventRow, cause: Cause.Cause<unknown>) =>
      sql`INSERT INTO outbox_dead_letters (subscriber, event_id, attempts, last_error)
          VALUES (${subscriber.name}, ${row.id}, ${options.maxAttempts}, ${Cause.pretty(cause)})
          ON CONFLICT DO NOTHING`.pipe(
        Effect.zipRight(Effect.logError("outbox event set aside after repeated failures", cause)),
        Effect.annotateLogs({ subscriber: subscriber.name, event_id: row.id, event_type: row.event_type })
      )

    const deliver = (row: EventRow) =>
      subscriber.handle(toEvent(row)).pipe(
        Effect.sandbox,
        Effect.tapError((cause) =>
          Effect.logWarning("outbox subscriber failed; will retry", cause).pipe(
            Effect.annotateLogs({ subscriber: subscriber.name, event_id: row.id })
          )
        ),
        Effect.retry(retryPolicy(options)),
        Effect.catchAll((cause) => deadLetter(row, cause)),
        Effect.withSpan("OutboxPublisher.deliver", {
          attributes: { subscriber: subscriber.name, type: row.event_type }
        })
      )

    const step = Effect.gen(function*() {
      const rows = yield* nextBatch()
      for (const row of rows) {
        yield* deliver(row)
        cursor = { txId: row.tx_id, eventId: Number(row.id) }
      }
      yield* saveCursor
      return rows.length
    })

    yield* step.pipe(
      Effect.flatMap((n) => (n < options.batchSize ? Effect.sleep(options.pollInterval) : Effect.void)),
      // The database may be away for a while; keep trying rather than stopping delivery for good.
      Effect.catchAllCause((cause) =>
        Cause.isInterruptedOnly(cause)
          ? Effect.failCause(cause)
          : Effect.logError("outbox publisher step failed", cause).pipe(Effect.zipRight(Effect.sleep("1 second")))
      ),
      Effect.forever,
      // Stopping (shutdown, singleton moving to another runner) keeps the progress made since the last save.
      Effect.ensuring(Effect.ignore(saveCursor))
    )
  }).pipe(dieOnSqlError, Effect.annotateLogs({ subscriber: subscriber.name }))

const toEvent = (row: EventRow): OutboxEvent => ({
  id: Number(row.id),
  tenantId: row.tenant_id === null ? null : Number(row.tenant_id),
  type: row.event_type,
  payload: row.payload,
  createdAt: row.created_at
})

/**
 * Runs a subscriber as a cluster singleton: exactly one runner delivers its events, and delivery moves to another
 * runner when that one stops.
 */
export const subscriberLayer = <R>(subscriber: OutboxSubscriber<R>) =>
  Layer.unwrapEffect(Effect.gen(function*() {
    const config = yield* AppConfig
    return Singleton.make(
      `outbox/${subscriber.name}`,
      runSubscriber(subscriber, { ...defaultPublisherOptions, pollInterval: config.outboxPollInterval })
    )
  }))
