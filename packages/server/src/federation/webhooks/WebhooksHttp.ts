import { HttpApiBuilder } from "@effect/platform"
import { Api, ok } from "@timebank/domain"
import { Effect, Layer } from "effect"
import { WebhookReceiver } from "./WebhookReceiver.js"

/** Partners' signed webhooks (decisions D13): the gate (`WebhooksSigned`) has checked the signature. */
export const FederationWebhooksHttpLive = HttpApiBuilder.group(
  Api,
  "federationWebhooks",
  (handlers) =>
    Effect.gen(function*() {
      const receiver = yield* WebhookReceiver
      return handlers
        .handle("test", () => Effect.succeed({ data: { ok: true as const }, meta: {} }))
        .handle("receive", ({ payload }) => Effect.map(receiver.receive(payload), ok))
    })
).pipe(Layer.provide(WebhookReceiver.Default), Layer.orDie)
