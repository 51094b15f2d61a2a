import { Config, Duration, Effect } from "effect"
import { REQUEST_TIMEOUT_MS } from "./PartnerHttp.js"

/**
 * The whole-request timeout of a protocol's transfer calls (prepare and send), from `FEDERATION_TRANSFER_TIMEOUT`
 * (default D13's 10 s; tests shorten it). Past it, a sent transfer's outcome at the partner is unknown.
 */
export const transferTimeoutMs: Effect.Effect<number> = Effect.gen(function*() {
  const timeout = yield* Config.duration("FEDERATION_TRANSFER_TIMEOUT").pipe(
    Config.withDefault(Duration.millis(REQUEST_TIMEOUT_MS))
  )
  return Duration.toMillis(timeout)
}).pipe(Effect.orDie)
