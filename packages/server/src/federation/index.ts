import { Layer } from "effect"
import type { WireDialect } from "../platform/WireDialect.js"
import { FederationAccountHttpLive } from "./accounts/FederationAccountHttp.js"
import { FederationAccessLive } from "./auth/FederationAccessLive.js"
import { OAuthDialect } from "./auth/OAuthDialect.js"
import { FederationOAuthLive } from "./auth/OAuthHttp.js"
import { CreditCommonsDialect } from "./creditcommons/CreditCommonsDialect.js"
import { CreditCommonsHttpLive } from "./creditcommons/CreditCommonsHttp.js"
import { InboundReadsHttpLive } from "./inbound/InboundReadsHttp.js"
import { FederatedBrowseHttpLive } from "./ingest/FederatedBrowseHttp.js"
import { ApiKeysHttpLive } from "./keys/ApiKeysHttp.js"
import { KomunitinDialect, KomunitinLive, KomunitinMiddlewareLive } from "./komunitin/index.js"
import { OutboundClusterLive, OutboundHttpLive } from "./outbound/index.js"
import { PartnersHttpLive } from "./partners/PartnersHttp.js"
import { SwitchesHttpLive } from "./switches/SwitchesHttp.js"
import { FederatedTransactionsLive } from "./transactions/index.js"
import { OutboundTransfersLive } from "./transfers/index.js"
import { FederationWebhooksHttpLive } from "./webhooks/WebhooksHttp.js"
import { FederatedWritesLive } from "./writes/index.js"

export * from "./auth/FederationAccessLive.js"
export * from "./auth/FederationGate.js"
export * from "./auth/FederationTokens.js"
export * from "./auth/NonceStore.js"
export { basicCredentials, grantOf } from "./auth/OAuthHttp.js"
export * from "./keys/ApiKeysService.js"
export * from "./keys/ApiKeyStore.js"
export * from "./outbound/index.js"
export * from "./outbound/SignedPost.js"
export * from "./partners/PartnerDirectory.js"
export * from "./partners/PartnersService.js"
export {
  secondsOfCents,
  TIMEOVERFLOW_MAX_SECONDS,
  timeOverflowSettingsIssues,
  timeOverflowSignature
} from "./protocols/TimeOverflowProtocol.js"
export * from "./signing/FederationSignature.js"
export * from "./switches/FederationSwitches.js"
export * from "./switches/SwitchesService.js"
export * from "./transactions/index.js"
export { OutboundTransferJobsLive } from "./transfers/index.js"
export * from "./writes/index.js"

/**
 * Federation (decisions D13, D13a). Each part adds its layer here: the access middleware of `/api/v1/federation/*`
 * to {@link FederationMiddlewareLive}, route handlers to {@link FederationLive}, workers and outbox subscribers to
 * {@link FederationClusterLive}.
 */
export const FederationMiddlewareLive = Layer.mergeAll(FederationAccessLive, KomunitinMiddlewareLive)

/** The federation routes: admin (switches, keys, partners, deliveries), inbound, and members' federated browse. */
export const FederationLive = Layer.mergeAll(
  SwitchesHttpLive,
  ApiKeysHttpLive,
  PartnersHttpLive,
  OutboundHttpLive,
  FederationWebhooksHttpLive,
  FederationOAuthLive,
  InboundReadsHttpLive,
  FederatedBrowseHttpLive,
  FederatedTransactionsLive,
  OutboundTransfersLive,
  FederatedWritesLive,
  FederationAccountHttpLive,
  KomunitinLive,
  CreditCommonsHttpLive
)

/** What federation runs on the cluster: the outbound webhook subscriber and delivery workers. */
export const FederationClusterLive = Layer.mergeAll(OutboundClusterLive)

/** The federation routes that speak a peer's wire format, for the HTTP edge (first match wins). */
export const FederationDialects: ReadonlyArray<WireDialect> = [OAuthDialect, CreditCommonsDialect, KomunitinDialect]
