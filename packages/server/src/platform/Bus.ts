import { PgClient } from "@effect/sql-pg"
import type { PgClientConfig } from "@effect/sql-pg/PgClient"
import { Config, Effect, Option, Redacted, Runtime, Schedule, Stream } from "effect"
import { Redis as IORedis } from "ioredis"
import pg from "pg"
import { AppConfig } from "./AppConfig.js"
import { Redis } from "./Redis.js"

/** What carries a bus between runners: Redis pub/sub or PostgreSQL LISTEN/NOTIFY. */
export type BusTransportKind = "redis" | "postgres"

/**
 * What a runner hears on the bus: a payload, or that its subscription is (again) in place. Both transports drop
 * what is published while a subscriber is disconnected, so `Connected` after a reconnect is the cue to refresh.
 */
export type BusEvent =
  | { readonly _tag: "Connected" }
  | { readonly _tag: "Payload"; readonly payload: string }

/** One channel between the runners of a deployment (every runner hears what any runner, itself included, sends). */
export interface Bus {
  /** Best effort: a failure is logged, never raised (a bell or a cache never fails because a frame was lost). */
  readonly publish: (payload: string) => Effect.Effect<void>
  /** Every event, for as long as it is run; reconnects with backoff on its own. */
  readonly events: Stream.Stream<BusEvent>
}

export interface BusOptions {
  readonly transport: BusTransportKind
  /** The channel, unique per deployment: Redis channels ignore the db index, so prefix them (see {@link busChannel}). */
  readonly channel: string
  /** Who uses the bus (`realtime`, `cache`): in log lines and the LISTEN connection's `application_name`. */
  readonly name: string
}

/**
 * `<variable>=auto` (default) picks Redis when `REDIS_URL` is set and PostgreSQL otherwise; `redis` or `postgres`
 * force one (forcing `redis` without `REDIS_URL` is a start-up error).
 */
export const busTransportFrom = (variable: string) =>
  Effect.gen(function*() {
    const app = yield* AppConfig
    const bus = yield* Config.literal("auto", "redis", "postgres")(variable).pipe(
      Config.withDefault("auto" as const),
      Effect.orDie
    )
    if (bus === "redis" && Option.isNone(app.redisUrl)) {
      return yield* Effect.dieMessage(`${variable}=redis needs REDIS_URL`)
    }
    const transport: BusTransportKind = bus === "auto" ? (Option.isSome(app.redisUrl) ? "redis" : "postgres") : bus
    return transport
  })

/**
 * The channel named `name` on `transport`: Redis channels carry `REDIS_KEY_PREFIX` (deployments and test databases
 * sharing a server never hear each other); NOTIFY channels are per database already.
 */
export const busChannel = (transport: BusTransportKind, name: string) =>
  Effect.map(AppConfig, (app) => (transport === "redis" ? `${app.redisKeyPrefix}${name}` : `timebank_${name}`))

const connected: BusEvent = { _tag: "Connected" }
const payload = (p: string): BusEvent => ({ _tag: "Payload", payload: p })
const asError = (e: unknown) => (e instanceof Error ? e : new Error(String(e)))

/** 100 ms doubling, at most 5 s apart, forever. */
const reconnectBackoff = Schedule.exponential("100 millis").pipe(Schedule.union(Schedule.spaced("5 seconds")))

const reconnecting = (what: string) => (events: Stream.Stream<BusEvent, Error>): Stream.Stream<BusEvent> =>
  events.pipe(
    Stream.tapError((error) =>
      Effect.logWarning(`${what} subscription lost; reconnecting`).pipe(Effect.annotateLogs({ error: error.message }))
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

const pgClientConfigOf = (c: PgClientConfig, name: string): pg.ClientConfig => ({
  ...(c.url === undefined ? {} : { connectionString: Redacted.value(c.url) }),
  ...(c.host === undefined ? {} : { host: c.host }),
  ...(c.port === undefined ? {} : { port: c.port }),
  ...(c.database === undefined ? {} : { database: c.database }),
  ...(c.username === undefined ? {} : { user: c.username }),
  ...(c.password === undefined ? {} : { password: Redacted.value(c.password) }),
  ...(c.ssl === undefined ? {} : { ssl: c.ssl }),
  application_name: `timebank-${name}`
})

/** A dedicated ioredis connection in subscriber mode; ioredis reconnects and re-subscribes by itself. */
const redisEvents = (url: string, channel: string, what: string): Stream.Stream<BusEvent, Error> =>
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
        if (subscribed && !down) runFork(Effect.logWarning(`${what} subscription lost; ioredis reconnects`))
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

/** A bus on `options.transport`, publishing through the process's pools and listening on its own connection. */
export const makeBus = (options: BusOptions) =>
  Effect.gen(function*() {
    const { channel, name } = options
    const what = `${name} bus (${options.transport})`
    if (options.transport === "redis") {
      const { redisUrl } = yield* AppConfig
      const shared = yield* Redis
      if (Option.isNone(redisUrl) || Option.isNone(shared.client)) {
        return yield* Effect.dieMessage(`the ${name} bus on Redis needs REDIS_URL`)
      }
      const publisher = shared.client.value
      return {
        publish: (p: string) =>
          logFailure(`${what}: publish failed`)(Effect.tryPromise(() => publisher.publish(channel, p))),
        events: reconnecting(what)(redisEvents(Redacted.value(redisUrl.value), channel, what))
      } satisfies Bus
    }
    const sql = yield* PgClient.PgClient
    return {
      // NOTIFY takes no bind parameters; pg_notify does.
      publish: (p: string) => logFailure(`${what}: publish failed`)(sql`SELECT pg_notify(${channel}, ${p})`),
      events: reconnecting(what)(postgresEvents(pgClientConfigOf(sql.config, name), channel))
    } satisfies Bus
  })
