import { Singleton } from "@effect/cluster"
import { Cause, Clock, Config, Duration, Effect, Layer } from "effect"
import { AccountMail } from "./AccountMail.js"
import { MailSender } from "./MailSender.js"

const logged = <A extends Record<string, number>>(what: string, work: Effect.Effect<A>) =>
  work.pipe(
    Effect.tap((report) =>
      Object.values(report).some((n) => n > 0)
        ? Effect.logInfo(what).pipe(Effect.annotateLogs({ ...report }))
        : Effect.void
    ),
    Effect.catchAllCause((cause) =>
      Cause.isInterruptedOnly(cause) ? Effect.failCause(cause) : Effect.logError(`${what} failed`, cause)
    )
  )

const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

/**
 * Instant and account mail as a cluster singleton, so that one runner sends at a time (and the row claims keep even
 * a handover's overlap from sending twice), every `MAIL_POLL_INTERVAL` (1 s), over all communities. Digests, expiry
 * and purge are the scheduler's jobs (`MailJobsLive`).
 */
export const MailSchedulerLive = Layer.unwrapEffect(Effect.gen(function*() {
  const poll = yield* Config.duration("MAIL_POLL_INTERVAL").pipe(Config.withDefault(Duration.seconds(1)), Effect.orDie)
  return Singleton.make(
    "notifications/mail-instant",
    Effect.gen(function*() {
      const sender = yield* MailSender
      const account = yield* AccountMail
      const once = Effect.flatMap(now, (at) =>
        Effect.zipRight(
          logged("account mail sent", account.sendPending(at)),
          logged("instant mail sent", sender.sendInstant(at))
        ))
      yield* Effect.forever(Effect.zipRight(once, Effect.sleep(poll)))
    })
  )
})).pipe(Layer.provide(AccountMail.Default), Layer.provide(MailSender.Default))
