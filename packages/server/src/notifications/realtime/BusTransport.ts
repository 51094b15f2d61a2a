import { PgClient } from "@effect/sql-pg"
import type { PgClientConfig } from "@effect/sql-pg/PgClient"
import { Effect, Option, Redacted, Runtime, Schedule, Stream } from "effect"
import { Redis as IORedis } from "ioredis"
import pg from "pg"
import { AppConfig } from "../../platform/AppConfig.js"
import { Redis } from "../../platform/Redis.js"
import { RealtimeConfig } from "./RealtimeConfig.js"

/**
 * What a runner hears on the bus: a payload, or that its subscription is (again) in place. Both transports drop
 * what is published while a subscriber is disconnected, so `Connected` after a reconnect is the cue to refresh.
 */
export type BusEvent =
  | { readonly _tag: "Connected" }
  | { readonly _tag: "Payload"; readonly payload: string }

export interface BusTransport {
  /** Best effort: a failure is logged, never raised (a bell never fails because a frame could not be sent). */
  readonly publish: (payload: string) => Effect.Effect<void>
  /** Every event, for as long as it is run; reconnects with backoff on its own. */
  readonly events: Stream.Stream<BusEvent>
}

const connected: BusEvent = { _tag: "Connected" }
const payload = (p: string): BusEvent => ({ _tag: "Payload", payload: p })
const asError = (e: unknown) => (e instanceof Error ? e : new Error(String(e)))

/** 100 ms doubling, at most 5 s apart, forever. */
const reconnectBackoff = Schedule.exponential("100 millis").pipe(Schedule.union(Schedule.spaced("5 seconds")))

const reconnecting = (name: string) => (events: Stream.Stream<BusEvent, Error>): Stream.Stream<BusEvent> =>
  events.pipe(
    Stream.tapError((error) =>
      Effect.logWarning(`realtime ${name} subscription lost; reconnecting`).pipe(
        Effect.annotateLogs({ error: error.message })
      )
    ),
    Stream.retry(reconnectBackoff),
    Stream.catchAll(() => Stream.empty)
  )

const logFailure = (what: string) => <A>(effect: Effect.Effect<A, unknown>) =>
  Effect.catchAllCause(Effect.asVoid(effect), (cause) => Effect.logWarning(what, cause))

/** A dedicated `pg` client doing LISTEN (`PgClient.listen` stops silently when its connection dies). */
const postgresEvents = (config: pg.ClientConfig, channel: string): Stream.Stream<BusEvent, Error> =>
  Stream.asyncScoped<BusEvent, Error>((emit) =>
    Effect.gen(function*() {
      const client = yield* Effect.acquireRelease(
        Effect.tryPromise({
          try: async () => {
            const c = new pg.Client(config)
            // An 'error' event without a listener would crash the process; failures surface through `emit` below.
            c.on("error", () => {})
            await c.connect()
            return c
          },
          catch: asError
        }),
        (c) => Effect.promise(() => c.end().catch(() => undefined))
      )
      client.on("notification", (m) => {
        if (m.channel === channel) void emit.single(payload(m.payload ?? ""))
      })
      client.on("error", (e) => void emit.fail(e))
      client.on("end", () => void emit.fail(new Error("LISTEN connection ended")))
      yield* Effect.tryPromise({ try: () => client.query(`LISTEN ${pg.escapeIdentifier(channel)}`), catch: asError })
      void emit.single(connected)
    })
  )

const pgClientConfigOf = (c: PgClientConfig): pg.ClientConfig => ({
  ...(c.url === undefined ? {} : { connectionString: Redacted.value(c.url) }),
  ...(c.host === undefined ? {} : { host: c.host }),
  ...(c.port === undefined ? {} : { port: c.port }),
  ...(c.database === undefined ? {} : { database: c.database }),
  ...(c.username === undefined ? {} : { user: c.username }),
  ...(c.password === undefined ? {} : { password: Redacted.value(c.password) }),
  ...(c.ssl === undefined ? {} : { ssl: c.ssl }),
  application_name: "timebank-realtime"
})

/** A dedicated ioredis connection in subscriber mode; ioredis reconnects and re-subscribes by itself. */
const redisEvents = (url: string, channel: string): Stream.Stream<BusEvent, Error> =>
  Stream.asyncScoped<BusEvent, Error>((emit) =>
    Effect.gen(function*() {
      const runFork = Runtime.runFork(yield* Effect.runtime<never>())
      const client = yield* Effect.acquireRelease(
        Effect.sync(() => new IORedis(url, { lazyConnect: true })),
        (c) => Effect.sync(() => c.disconnect())
      )
      let subscribed = false
      let down = false
      client.on("message", (ch: string, message: string) => {
        if (ch === channel) void emit.single(payload(message))
      })
      client.on("error", () => {
        if (subscribed && !down) runFork(Effect.logWarning("realtime redis subscription lost; ioredis reconnects"))
        down = subscribed
      })
      client.on("ready", () => {
        down = false
        if (subscribed) void emit.single(connected)
      })
      yield* Effect.tryPromise({ try: () => client.connect(), catch: asError })
      yield* Effect.tryPromise({ try: () => client.subscribe(channel), catch: asError })
      subscribed = true
      void emit.single(connected)
    })
  )

/** The transport `RealtimeConfig` chose, publishing through the process's pools and listening on its own line. */
export const makeBusTransport = Effect.gen(function*() {
  const config = yield* RealtimeConfig
  if (config.transport === "redis") {
    const { redisUrl } = yield* AppConfig
    const shared = yield* Redis
    const url = Option.getOrThrowWith(redisUrl, () => new Error("REALTIME_BUS=redis needs REDIS_URL"))
    const publisher = Option.getOrThrowWith(shared.client, () => new Error("REALTIME_BUS=redis needs REDIS_URL"))
    const channel = config.redisChannel
    return {
      publish: (p: string) =>
        logFailure("realtime publish failed")(Effect.tryPromise(() => publisher.publish(channel, p))),
      events: reconnecting("redis")(redisEvents(Redacted.value(url), channel))
    } satisfies BusTransport
  }
  const sql = yield* PgClient.PgClient
  const channel = config.postgresChannel
  return {
    // NOTIFY takes no bind parameters; pg_notify does.
    publish: (p: string) => logFailure("realtime publish failed")(sql`SELECT pg_notify(${channel}, ${p})`),
    events: reconnecting("postgres")(postgresEvents(pgClientConfigOf(sql.config), channel))
  } satisfies BusTransport
})
