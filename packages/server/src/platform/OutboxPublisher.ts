import { Singleton } from "@effect/cluster"
import { SqlClient } from "@effect/sql"
import { DomainEvent, type DomainEventOf, type DomainEventTag } from "@timebank/domain"
import { Cause, Duration, Effect, Either, Layer, ParseResult, Schedule, Schema } from "effect"
import { AppConfig } from "./AppConfig.js"
import { openCursor } from "./OutboxCursor.js"
import { pgArray } from "./SqlArrays.js"
import { DbDate, DbInt, decodeRows } from "./SqlRows.js"
import { linksTo } from "./Telemetry.js"
import { dieOnSqlError } from "./TenantSql.js"

/** What a subscriber learns about an event besides the event itself. */
export interface OutboxMeta {
  /** The outbox row's id: with the subscriber's name, a key for recording what was handled. */
  readonly id: number
  readonly tenantId: number | null
  readonly createdAt: Date
}

/** One event as a publisher batch hands it to `handleMany`: the event and what the outbox row says of it. */
export interface OutboxItem<K extends DomainEventTag> {
  readonly event: DomainEventOf<K>
  readonly meta: OutboxMeta
}

/**
 * A consumer of domain events. It names the tags it handles and receives only those, decoded; the events of
 * other tags move its cursor without reaching it. It must be idempotent: delivery is at least once (a crash between
 * handling an event and saving the cursor hands the event over again).
 */
export interface OutboxSubscriber<K extends DomainEventTag, R = never> {
  readonly name: string
  readonly tags: ReadonlyArray<K>
  readonly handle: (event: DomainEventOf<K>, meta: OutboxMeta) => Effect.Effect<void, unknown, R>
  /**
   * Optional: the subscriber's events of one publisher batch at once, in commit order (one statement for a hundred
   * events instead of one each). Tried once per batch; when it fails, every event goes through `handle` as usual
   * (retries, dead letters), so it must be idempotent too.
   */
  readonly handleMany?: (events: ReadonlyArray<OutboxItem<K>>) => Effect.Effect<void, unknown, R>
}

/**
 * A batch's events by community, in commit order within each (events of no community are left out): for
 * subscribers that write one transaction per community and batch.
 */
export const groupByTenant = <T extends { readonly meta: OutboxMeta }>(
  items: ReadonlyArray<T>
): ReadonlyArray<readonly [number, ReadonlyArray<T>]> => {
  const byTenant = new Map<number, Array<T>>()
  for (const item of items) {
    if (item.meta.tenantId === null) continue
    const list = byTenant.get(item.meta.tenantId)
    if (list === undefined) byTenant.set(item.meta.tenantId, [item])
    else list.push(item)
  }
  return [...byTenant]
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

/** `payload` is read only for the subscriber's own tags (null otherwise): the rest only move its cursor. */
const OutboxRow = Schema.Struct({
  id: DbInt,
  tx_id: Schema.String,
  tenant_id: Schema.NullOr(DbInt),
  event_type: Schema.String,
  payload: Schema.Unknown,
  created_at: DbDate,
  trace_parent: Schema.NullOr(Schema.String)
})
type OutboxRow = typeof OutboxRow.Type

/** Each member of the union by tag: a row is decoded by its own event's schema, for a focused parse error. */
const memberByTag = new Map<string, Schema.Schema<DomainEvent, unknown>>(
  DomainEvent.members.map((member) => [member._tag, member as unknown as Schema.Schema<DomainEvent, unknown>])
)

/** Turns a row back into its event: the tag from `event_type`, the fields from `payload`. */
export const decodeOutboxRow = (
  row: Pick<OutboxRow, "event_type" | "payload">
): Either.Either<DomainEvent, string> => {
  const member = memberByTag.get(row.event_type)
  if (member === undefined) return Either.left(`unknown event type ${JSON.stringify(row.event_type)}`)
  if (typeof row.payload !== "object" || row.payload === null || Array.isArray(row.payload)) {
    return Either.left(`payload is not an object: ${JSON.stringify(row.payload)}`)
  }
  return Either.mapLeft(
    Schema.decodeUnknownEither(member)({ ...row.payload, _tag: row.event_type }),
    (error) => ParseResult.TreeFormatter.formatErrorSync(error)
  )
}

const isKnownTag = (type: string) => memberByTag.has(type)

/**
 * Hands every committed outbox event of the subscriber's tags, in commit order, to the subscriber, retrying each
 * event with backoff before moving on. Runs until interrupted. Each subscriber keeps its own cursor and its own
 * retries, so one failing subscriber delays only itself. A row that does not decode (an unknown type, a payload that
 * does not match its event) is a defect: logged, parked in `outbox_dead_letters` (reason `undecodable`) and
 * passed over.
 */
export const runSubscriber = <K extends DomainEventTag, R>(
  subscriber: OutboxSubscriber<K, R>,
  options: PublisherOptions = defaultPublisherOptions
) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const cursor = yield* openCursor(subscriber.name)
    const tags: ReadonlySet<string> = new Set(subscriber.tags)
    const tagList = pgArray([...tags])

    // Only rows whose writing transactions precede every transaction still running: nothing can commit later
    // with a smaller (tx_id, id), so the cursor never skips an event.
    const nextBatch = () =>
      sql`
      SELECT id, tx_id::text AS tx_id, tenant_id, event_type,
             CASE WHEN event_type = ANY(${tagList}::text[]) THEN payload END AS payload, created_at, trace_parent
      FROM outbox_events
      WHERE (tx_id, id) > (${cursor.position.txId}::xid8, ${cursor.position.eventId})
        AND tx_id < pg_snapshot_xmin(pg_current_snapshot())
      ORDER BY tx_id, id
      LIMIT ${options.batchSize}`.pipe(decodeRows(OutboxRow))

    const setAside = (row: OutboxRow, attempts: number, reason: "failed" | "undecodable", error: string) =>
      sql`INSERT INTO outbox_dead_letters (subscriber, event_id, attempts, last_error, reason)
          VALUES (${subscriber.name}, ${row.id}, ${attempts}, ${error}, ${reason})
          ON CONFLICT DO NOTHING`.pipe(Effect.asVoid)

    const park = (row: OutboxRow, error: string) =>
      setAside(row, 0, "undecodable", error).pipe(
        Effect.zipRight(Effect.logError(`outbox event does not decode; parked: ${error}`)),
        Effect.annotateLogs({ subscriber: subscriber.name, event_id: row.id, event_type: row.event_type })
      )

    const deadLetter = (row: OutboxRow, cause: Cause.Cause<unknown>) =>
      setAside(row, options.maxAttempts, "failed", Cause.pretty(cause)).pipe(
        Effect.zipRight(Effect.logError("outbox event set aside after repeated failures", cause)),
        Effect.annotateLogs({ subscriber: subscriber.name, event_id: row.id, event_type: row.event_type })
      )

    const deliver = (row: OutboxRow, event: DomainEventOf<K>) =>
      subscriber.handle(event, { id: row.id, tenantId: row.tenant_id, createdAt: row.created_at }).pipe(
        Effect.sandbox,
        Effect.tapError((cause) =>
          Effect.logWarning("outbox subscriber failed; will retry", cause).pipe(
            Effect.annotateLogs({ subscriber: subscriber.name, event_id: row.id })
          )
        ),
        Effect.retry(retryPolicy(options)),
        Effect.catchAll((cause) => deadLetter(row, cause)),
        Effect.withSpan("OutboxPublisher.deliver", {
          attributes: { subscriber: subscriber.name, type: row.event_type, "outbox.event_id": row.id },
          links: linksTo([row.trace_parent]),
          kind: "consumer",
          captureStackTrace: false
        })
      )

    const handleRow = (row: OutboxRow) => {
      if (!tags.has(row.event_type)) {
        return isKnownTag(row.event_type) ? Effect.void : park(row, `unknown event type ${row.event_type}`)
      }
      return Either.match(decodeOutboxRow(row), {
        onLeft: (error) => park(row, error),
        // The tag is one of the subscriber's, so the event is one of DomainEventOf<K>.
        onRight: (event) => deliver(row, event as DomainEventOf<K>)
      })
    }

    /** The batch's events through `handleMany`; false when it has none, one does not decode, or it failed. */
    const handleTogether = (rows: ReadonlyArray<OutboxRow>) =>
      Effect.suspend(() => {
        const handleMany = subscriber.handleMany
        const items: Array<{ event: DomainEventOf<K>; meta: OutboxMeta }> = []
        const traceParents: Array<string | null> = []
        for (const row of rows) {
          if (!tags.has(row.event_type)) continue
          const decoded = decodeOutboxRow(row)
          if (Either.isLeft(decoded)) return Effect.succeed(false)
          const meta = { id: row.id, tenantId: row.tenant_id, createdAt: row.created_at }
          items.push({ event: decoded.right as DomainEventOf<K>, meta })
          traceParents.push(row.trace_parent)
        }
        if (handleMany === undefined || items.length === 0) return Effect.succeed(false)
        return handleMany(items).pipe(
          Effect.withSpan("OutboxPublisher.deliverMany", {
            attributes: { subscriber: subscriber.name, "batch.size": items.length },
            links: linksTo(traceParents),
            kind: "consumer",
            captureStackTrace: false
          }),
          Effect.as(true),
          Effect.catchAllCause((cause) =>
            Cause.isInterruptedOnly(cause)
              ? Effect.failCause(cause)
              : Effect.logWarning("outbox subscriber failed on a batch; handling its events one by one", cause).pipe(
                Effect.as(false)
              )
          )
        )
      })

    const step = Effect.gen(function*() {
      const rows = yield* nextBatch()
      const together = subscriber.handleMany !== undefined && (yield* handleTogether(rows))
      for (const row of rows) {
        // Rows of other tags still pass handleRow: an unknown type is parked either way.
        if (!together || !tags.has(row.event_type)) yield* handleRow(row)
        cursor.moveTo({ txId: row.tx_id, eventId: row.id })
      }
      yield* cursor.save
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
      Effect.ensuring(Effect.ignore(cursor.save))
    )
  }).pipe(dieOnSqlError, Effect.annotateLogs({ subscriber: subscriber.name }))

/**
 * Runs a subscriber as a cluster singleton: exactly one runner delivers its events, and delivery moves to another
 * runner when that one stops.
 */
export const subscriberLayer = <K extends DomainEventTag, R>(subscriber: OutboxSubscriber<K, R>) =>
  Layer.unwrapEffect(Effect.gen(function*() {
    const config = yield* AppConfig
    return Singleton.make(
      `outbox/${subscriber.name}`,
      runSubscriber(subscriber, { ...defaultPublisherOptions, pollInterval: config.outboxPollInterval })
    )
  }))
