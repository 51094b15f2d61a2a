import { Layer } from "effect"
import { LedgerEntityLive } from "./LedgerEntityLive.js"
import { LedgerWriter } from "./LedgerWriter.js"
import { StartingBalanceLive } from "./StartingBalance.js"
import { AdminWalletHttpLive, WalletHttpLive } from "./WalletHttp.js"

export * from "./LedgerBatch.js"
export * from "./LedgerClearing.js"
export * from "./LedgerEntityLive.js"
export * from "./LedgerRepo.js"
export * from "./LedgerReports.js"
export * from "./LedgerService.js"
export * from "./LedgerStats.js"
export * from "./LedgerVerify.js"
export * from "./LedgerWriter.js"
export * from "./StartingBalance.js"
export * from "./WalletHttp.js"

/** The wallet routes. */
export const LedgerHttpLive = Layer.mergeAll(WalletHttpLive, AdminWalletHttpLive)

/**
 * What runs on the cluster: the Ledger entity, writing through `writer`, and the ledger's outbox subscribers.
 * Tests give it a writer that misbehaves on purpose.
 */
export const ledgerClusterWith = <E, R>(writer: Layer.Layer<LedgerWriter, E, R>) =>
  Layer.mergeAll(LedgerEntityLive.pipe(Layer.provide(writer)), StartingBalanceLive)

export const LedgerClusterLive = ledgerClusterWith(LedgerWriter.Default)
