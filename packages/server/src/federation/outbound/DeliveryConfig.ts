import { Config, Duration, Effect } from "effect"
import { CONNECT_TIMEOUT_MS, REQUEST_TIMEOUT_MS } from "./SignedPost.js"

const duration = (name: string, fallback: Duration.DurationInput) =>
  Config.duration(name).pipe(Config.withDefault(Duration.decode(fallback)))

const positive = (name: string, fallback: number) =>
  Config.integer(name).pipe(
    Config.validate({ message: `${name} must be a positive integer`, validation: (n) => n > 0 }),
    Config.withDefault(fallback)
  )

/** How outbound webhooks are delivered (decisions D13); the defaults are D13's, tests shorten them. */
export interface DeliverySettings {
  /** Backoff after the n-th failed attempt: `retryBase` × 2ⁿ⁻¹, at most `retryCap`. */
  readonly retryBase: Duration.Duration
  readonly retryCap: Duration.Duration
  /** Attempts in all before a delivery is `dead`. */
  readonly maxAttempts: number
  /** Consecutive failed attempts that open a partner's breaker, and how long it stays open. */
  readonly breakerThreshold: number
  readonly breakerOpen: Duration.Duration
  /** Requests in flight per partner, and rows claimed at a time per partner. */
  readonly concurrency: number
  readonly batchSize: number
  /** How often the worker looks for partners with due deliveries. */
  readonly pollInterval: Duration.Duration
  readonly connectTimeout: Duration.Duration
  readonly requestTimeout: Duration.Duration
  /**
   * How long a claimed row stays with its sender: past the time a claimed batch takes at the worst (every request
   * timing out), so a live sender never loses a row to another.
   */
  readonly lease: Duration.Duration
}

/** The delivery settings, from `FEDERATION_WEBHOOK_*` (README "Configuration"). */
export class DeliveryConfig extends Effect.Service<DeliveryConfig>()("FederationDeliveryConfig", {
  effect: Effect.gen(function*() {
    const requestTimeout = yield* duration("FEDERATION_WEBHOOK_TIMEOUT", Duration.millis(REQUEST_TIMEOUT_MS))
    const concurrency = yield* positive("FEDERATION_WEBHOOK_CONCURRENCY", 16)
    const settings: DeliverySettings = {
      retryBase: yield* duration("FEDERATION_WEBHOOK_RETRY_BASE", "30 seconds"),
      retryCap: yield* duration("FEDERATION_WEBHOOK_RETRY_CAP", "1 hour"),
      maxAttempts: yield* positive("FEDERATION_WEBHOOK_MAX_ATTEMPTS", 8),
      breakerThreshold: yield* positive("FEDERATION_BREAKER_THRESHOLD", 5),
      breakerOpen: yield* duration("FEDERATION_BREAKER_OPEN", "5 minutes"),
      concurrency,
      batchSize: concurrency * 4,
      pollInterval: yield* duration("FEDERATION_WEBHOOK_POLL_INTERVAL", "1 second"),
      connectTimeout: yield* duration("FEDERATION_WEBHOOK_CONNECT_TIMEOUT", Duration.millis(CONNECT_TIMEOUT_MS)),
      requestTimeout,
      // A batch waits for at most batchSize / concurrency rounds of requests before its last row is sent.
      lease: Duration.sum(Duration.times(requestTimeout, 5), Duration.seconds(30))
    }
    return settings
  }).pipe(Effect.orDie)
}) {}
