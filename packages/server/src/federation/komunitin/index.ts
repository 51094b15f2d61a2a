import { KomunitinPublicReadLimit } from "@timebank/domain"
import { Layer } from "effect"
import { rateLimitLayer } from "../../platform/RateLimit.js"
import { KomunitinAccessLive } from "./KomunitinAccessLive.js"
import { KomunitinHttpLive } from "./KomunitinHttp.js"
import { KomunitinReads } from "./KomunitinReads.js"
import { KomunitinTransfers } from "./KomunitinTransfers.js"

export { KomunitinDialect } from "./KomunitinDialect.js"

/** The middleware of the `{CODE}` routes: their gates and the per-IP limit of the routes without credentials. */
export const KomunitinMiddlewareLive = Layer.mergeAll(KomunitinAccessLive, rateLimitLayer(KomunitinPublicReadLimit))

/** Komunitin's JSON:API at `/api/v1/federation/{CODE}` (decisions D16); needs `LedgerService` from the app. */
export const KomunitinLive = KomunitinHttpLive.pipe(
  Layer.provide(Layer.mergeAll(KomunitinReads.Default, KomunitinTransfers.Default)),
  // SecretBox (through PartnerDirectory) reads its key at start: a missing one is a defect of the deployment.
  Layer.orDie
)
