import { Singleton } from "@effect/cluster"
import { Cause, Effect, Either, FiberMap, Layer, Option, Queue } from "effect"
import { type ClaimedDelivery, DeliveryRepo } from "./DeliveryRepo.js"
import { DeliverySender, type DeliveryTarget } from "./DeliverySender.js"
import { isSuccess, type SignedPostResult } from "./SignedPost.js"
import { eventsAllowedBy } from "./WebhookEvents.js"

const logFailure = (what: string) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.catchAllCause(
    effect,
    (cause) => Cause.isInterruptedOnly(cause) ? Effect.failCause(cause) : Effect.logError(what, cause)
  )

/**
 * Sends one partner's due deliveries until none are left (or it may not be sent to), keeping up to `concurrency`
 * requests in flight: it claims due rows a batch at a time (`SKIP LOCKED`, with a lease) and starts one whenever a
 * slot is free. While the breaker is open nothing is sent (claimed rows are let go); once its time is up a single
 * delivery goes as the probe and the others wait for its outcome. The partner's status, switches, toggles and
 * credentials are read again before every claim.
 */
const drainPartner = (partnerId: number) =>
  Effect.gen(function*() {
    const repo = yield* DeliveryRepo
    const sender = yield* DeliverySender
    const settings = sender.settings
    const finished = yield* Queue.unbounded<void>()
    let inFlight = 0
    let opened = false
    // Successes are recorded together (one statement per flush); a failure first flushes the successes that ended
    // before it, so the breaker sees attempts in the order they ended.
    const succeeded: Array<{ id: number; result: SignedPostResult }> = []
    const flush = Effect.suspend(() => sender.recordSuccesses(succeeded.splice(0)))
    const settle = (delivery: ClaimedDelivery, result: SignedPostResult) => {
      if (isSuccess(result)) {
        succeeded.push({ id: delivery.id, result })
        return succeeded.length >= settings.concurrency ? flush : Effect.void
      }
      return flush.pipe(
        Effect.zipRight(sender.recordFailure(delivery.id, result)),
        Effect.map((open) => {
          opened ||= open
        })
      )
    }
    const start = (delivery: ClaimedDelivery, target: DeliveryTarget) => {
      inFlight++
      return Effect.forkScoped(
        Effect.flatMap(sender.attempt(delivery, target), (result) => settle(delivery, result)).pipe(
          Effect.ensuring(Effect.suspend(() => {
            inFlight--
            return Queue.offer(finished, undefined)
          }))
        )
      )
    }
    /** Waits for one request to end (and takes the news of any others that ended meanwhile). */
    const oneFinished = Effect.zipRight(Queue.take(finished), Queue.takeAll(finished))
    const allFinished = Effect.gen(function*() {
      while (inFlight > 0) yield* oneFinished
      yield* flush
    })

    // Rows claimed ahead (a batch at a time, so claiming costs little per delivery), with the partner's URL,
    // dialect and credentials as read when they were claimed.
    const ready: Array<ClaimedDelivery> = []
    let target: DeliveryTarget | undefined
    const stop = Effect.suspend(() => Effect.zipRight(repo.release(ready.splice(0).map((d) => d.id)), allFinished))

    while (true) {
      if (opened) return yield* stop
      if (inFlight >= settings.concurrency) {
        yield* oneFinished
        continue
      }
      const next = ready.shift()
      if (next !== undefined && target !== undefined) {
        yield* start(next, target)
        continue
      }
      const partner = Option.getOrUndefined(yield* repo.partner(partnerId))
      const receiving = partner !== undefined && (partner.status === "active" || partner.status === "failed")
      if (!receiving || !partner.federation_on || partner.breaker === "open") return yield* stop
      const found = yield* sender.targetOf(partner)
      if (Either.isLeft(found)) return yield* stop
      target = found.right
      const probing = partner.breaker === "half_open"
      if (probing && inFlight > 0) {
        yield* allFinished
        continue
      }
      const events = eventsAllowedBy(partner.toggles as Record<string, boolean>)
      const claimed = yield* repo.claim(partnerId, events, probing ? 1 : settings.batchSize, settings.lease)
      if (claimed.length === 0) {
        if (inFlight === 0) return yield* flush
        yield* oneFinished
        continue
      }
      ready.push(...claimed)
      // The probe's outcome decides whether anything else goes.
      if (probing) {
        yield* start(ready.shift()!, found.right)
        yield* allFinished
      }
    }
  }).pipe(
    Effect.scoped,
    logFailure("federation webhook delivery failed"),
    Effect.annotateLogs({ partner_id: partnerId }),
    Effect.withSpan("FederationDelivery.drainPartner", { attributes: { partner_id: partnerId } })
  )

/**
 * The outbound webhook worker (decisions D13): one cluster singleton, so one runner sends, keeping one fiber per
 * partner with due deliveries — a slow or dead partner holds up only its own fiber. Every `pollInterval` it looks
 * for partners with due rows and starts a fiber for each that has none; a fiber ends when its partner has nothing
 * due. The claims' leases keep a handover's overlap (and an admin's retry) from sending a row twice.
 */
export const DeliveryWorkerLive = Singleton.make(
  "federation/webhook-deliveries",
  Effect.gen(function*() {
    const repo = yield* DeliveryRepo
    const sender = yield* DeliverySender
    const fibers = yield* FiberMap.make<number>()
    const tick = Effect.gen(function*() {
      const partners = yield* repo.duePartners
      for (const id of partners) {
        yield* FiberMap.run(fibers, id, drainPartner(id), { onlyIfMissing: true })
      }
    }).pipe(logFailure("federation webhook worker step failed"))
    yield* Effect.forever(Effect.zipRight(tick, Effect.sleep(sender.settings.pollInterval)))
  }).pipe(Effect.scoped)
).pipe(Layer.provide(Layer.mergeAll(DeliveryRepo.Default, DeliverySender.Default)))
