import { Layer } from "effect"
import { OutboundTransfers } from "./OutboundTransfers.js"
import { OutboundTransfersHttpLive } from "./OutboundTransfersHttp.js"

export { OutboundTransferJobsLive } from "./OutboundTransferJobs.js"
export * from "./OutboundTransfers.js"
export * from "./OutboundTransfersRepo.js"

/** `POST|GET /api/v2/federation/transfers`; needs `LedgerService` from the app. */
export const OutboundTransfersLive = OutboundTransfersHttpLive.pipe(
  Layer.provide(OutboundTransfers.Default),
  // SecretBox (through PartnerDirectory) reads its key at start: a missing one is a defect of the deployment.
  Layer.orDie
)
