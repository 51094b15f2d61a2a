import { Layer } from "effect"

export * from "./keys/ApiKeyStore.js"
export * from "./signing/FederationSignature.js"
export * from "./switches/FederationSwitches.js"

/**
 * Federation (decisions D13, D13a). Each part adds its layer here: the access middleware of `/api/v1/federation/*`
 * to {@link FederationMiddlewareLive}, route handlers to {@link FederationLive}, workers and outbox subscribers to
 * {@link FederationClusterLive}.
 */
export const FederationMiddlewareLive = Layer.mergeAll(Layer.empty)

/** The federation routes: admin (switches, keys, partners, deliveries), inbound, and members' federated browse. */
export const FederationLive = Layer.mergeAll(Layer.empty)

/** What federation runs on the cluster: the outbound webhook subscriber and delivery workers. */
export const FederationClusterLive = Layer.mergeAll(Layer.empty)
