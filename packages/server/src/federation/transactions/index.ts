import { Layer } from "effect"
import { FederatedTransactions } from "./FederatedTransactions.js"
import { FederatedTransactionsHttpLive } from "./FederatedTransactionsHttp.js"

export * from "./FederatedTransactionRepo.js"
export * from "./FederatedTransactions.js"

/** `POST|GET /api/v1/federation/transactions`; needs `LedgerService` from the app. */
export const FederatedTransactionsLive = FederatedTransactionsHttpLive.pipe(
  Layer.provide(FederatedTransactions.Default),
  // SecretBox (through PartnerDirectory) reads its key at start: a missing one is a defect of the deployment.
  Layer.orDie
)
