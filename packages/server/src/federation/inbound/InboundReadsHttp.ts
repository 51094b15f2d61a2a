import { HttpApiBuilder } from "@effect/platform"
import { Api, CurrentTenant, FederationCaller, ok } from "@timebank/domain"
import { Effect, Layer } from "effect"
import { InboundReadsService } from "./InboundReadsService.js"

/** Runs a read for the calling key's community: federation requests take their tenant from the key (D13). */
const forCaller = <A, E, R>(
  read: Effect.Effect<A, E, R>
): Effect.Effect<A, E, Exclude<R, CurrentTenant> | FederationCaller> =>
  Effect.flatMap(FederationCaller, (caller) => Effect.provideService(read, CurrentTenant, caller.tenant))

export const InboundReadsHttpLive = HttpApiBuilder.group(
  Api,
  "federationInbound",
  (handlers) =>
    Effect.gen(function*() {
      const reads = yield* InboundReadsService
      return handlers
        .handle("listListings", ({ urlParams }) => forCaller(reads.listListings(urlParams)))
        .handle("getListing", ({ path }) => forCaller(Effect.map(reads.getListing(path.id), ok)))
        .handle("listMembers", ({ urlParams }) => forCaller(reads.listMembers(urlParams)))
        .handle("getMember", ({ path }) => forCaller(Effect.map(reads.getMember(path.id), ok)))
        .handle("listEvents", ({ urlParams }) => forCaller(reads.listEvents(urlParams)))
        .handle("getEvent", ({ path }) => forCaller(Effect.map(reads.getEvent(path.id), ok)))
        .handle("listGroups", ({ urlParams }) => forCaller(reads.listGroups(urlParams)))
        .handle("listReviews", ({ urlParams }) => forCaller(reads.listReviews(urlParams)))
        .handle("listOpportunities", ({ urlParams }) => forCaller(reads.listOpportunities(urlParams)))
    })
).pipe(Layer.provide(InboundReadsService.Default))
