import { HttpApiBuilder } from "@effect/platform"
import { Api, ok } from "@timebank/domain"
import { Effect, Layer } from "effect"
import { CreditCommonsPartnerView } from "../creditcommons/CreditCommonsPartnerView.js"
import { PartnersService } from "./PartnersService.js"

const FederationPartnersHttp = HttpApiBuilder.group(Api, "federationPartners", (handlers) =>
  Effect.gen(function*() {
    const partners = yield* PartnersService
    const creditCommons = yield* CreditCommonsPartnerView
    return handlers
      .handle("list", ({ urlParams }) => partners.list(urlParams))
      .handle("create", ({ payload }) => Effect.map(partners.create(payload), ok))
      .handle("get", ({ path }) => Effect.map(Effect.flatMap(partners.get(path.id), creditCommons.withChain), ok))
      .handle("update", ({ path, payload }) => Effect.map(partners.update(path.id, payload), ok))
      .handle("delete", ({ path }) => Effect.map(partners.remove(path.id), ok))
      .handle("test", ({ path }) => Effect.map(partners.test(path.id), ok))
      .handle("diagnose", ({ path }) => Effect.map(partners.diagnose(path.id), ok))
      .handle("suspend", ({ path }) => Effect.map(partners.suspend(path.id), ok))
      .handle("reactivate", ({ path }) => Effect.map(partners.reactivate(path.id), ok))
      .handle("position", ({ path }) => Effect.map(partners.position(path.id), ok))
  }))

/** Tenant admins' federation partners (decisions D13, D13a). */
export const PartnersHttpLive = FederationPartnersHttp.pipe(
  // A missing or malformed SECRETS_KEY is a start-up defect, not an answer.
  Layer.provide(Layer.merge(PartnersService.Default, CreditCommonsPartnerView.Default).pipe(Layer.orDie))
)
