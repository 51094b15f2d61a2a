import { HttpApiBuilder } from "@effect/platform"
import { Api, ok } from "@timebank/domain"
import { Effect, Layer } from "effect"
import { ApiKeysService } from "./ApiKeysService.js"

const AdminFederationKeysHttp = HttpApiBuilder.group(Api, "adminFederationKeys", (handlers) =>
  Effect.gen(function*() {
    const keys = yield* ApiKeysService
    return handlers
      .handle("list", ({ urlParams }) => keys.list(urlParams))
      .handle("create", ({ payload }) => Effect.map(keys.create(payload), ok))
      .handle("get", ({ path }) => Effect.map(keys.get(path.id), ok))
      .handle("revoke", ({ path }) => Effect.map(keys.revoke(path.id), ok))
  }))

/** Tenant admins' inbound API keys (decisions D13). A SECRETS_KEY that cannot be read stops the start. */
export const ApiKeysHttpLive = AdminFederationKeysHttp.pipe(Layer.provide(ApiKeysService.Default), Layer.orDie)
