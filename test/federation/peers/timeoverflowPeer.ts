import { Effect } from "effect"
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto"
import { type FakePeer, fakePeer, type PeerAnswer, type PeerRequest } from "./fakePeer.js"

/**
 * A TimeOverflow fork (shared/federation/timeoverflow.md and fixtures/timeoverflow) on {@link fakePeer}, checking
 * our calls as its controllers do, with its own code:
 * - `GET /api/v1/health` without a key (fixture 09);
 * - the key in `X-Federation-Api-Key` or `Authorization: Bearer` (`to_fed_` + 64 hex, kept as SHA-256), else 401
 *   (fixture 06); a key without the `transactions` permission gets 403 on transfers (fixture 07); `rateLimit`
 *   requests per key and minute, then 429 (fixture 08) with `X-RateLimit-Limit/Remaining` only;
 * - `GET /api/v1/organizations` for any valid key;
 * - `POST /api/v1/transfers` (`transfers_controller.rb`): required fields (400 "Missing required fields: …"),
 *   `amount` integer seconds in 1..`maxSeconds` (400, fixture 05), `partner_id` = its own row for us and
 *   `local_account_id` one of its accounts (404), 201 `completed` (fixture 02), the same `external_transaction_id`
 *   again 200 with the first record (fixture 03);
 * - `POST /api/v1/webhooks/receive` (`webhooks_controller.rb`): the partner from the body's `partner_id`; with
 *   `X-Federation-Timestamp` the HMAC of `METHOD\nFULLPATH\nTS\nBODY` (four parts) with the webhook secret, then
 *   ±300 s; without it the body-only HMAC; 401 "Invalid signature" (fixture 17); 200 (fixture 16).
 * Tests replace `handle` for failures and hangs (falling back to `behave`).
 */

export interface TimeOverflowTransfer {
  readonly federation_transaction_id: number
  readonly external_transaction_id: string | null
  readonly local_transfer_id: number
  readonly status: "completed"
  readonly amount: number
  readonly direction: string
  readonly completed_at: string
  readonly local_account_id: number
  readonly remote_user_identifier: string
  readonly reason: string
}

export interface TimeOverflowWebhook {
  readonly path: string
  readonly body: Record<string, unknown>
  /** Which signature held: the four-part one (with a timestamp), or the body-only fallback. */
  readonly verified: "four_part" | "body_only"
}

export interface TimeOverflowPeer extends FakePeer {
  /** What we store as the partner's credentials: the key it issued us and its webhook secret for us. */
  readonly credentials: { readonly api_key: string; readonly webhook_secret: string }
  /** TimeOverflow's own partner row id for us (our `settings.remote_partner_id`). */
  readonly partnerId: number
  /** Its local accounts (recipient ids that exist there). */
  readonly accounts: ReadonlySet<number>
  /** Transfers it settled, in order. */
  readonly transfers: Array<TimeOverflowTransfer>
  /** Webhooks whose signature held, in order. */
  readonly webhooks: Array<TimeOverflowWebhook>
  /** Why each refused call was refused (its `error`), in order. */
  readonly refusals: Array<string>
  readonly behave: (request: PeerRequest) => PeerAnswer
}

const hmacHex = (secret: string, text: string) => createHmac("sha256", secret).update(text, "utf8").digest("hex")

const sameHex = (a: string, b: string) =>
  /^[0-9a-f]{64}$/i.test(a) && timingSafeEqual(Buffer.from(a.toLowerCase(), "hex"), Buffer.from(b, "hex"))

const header = (request: PeerRequest, name: string) => {
  const value = request.headers[name]
  return Array.isArray(value) ? value[0] : value
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)

export const timeoverflowPeer = (
  options: {
    readonly partnerId?: number
    readonly accounts?: ReadonlyArray<number>
    /** `FEDERATION_MAX_TRANSFER_AMOUNT` (default 360 000 s). */
    readonly maxSeconds?: number
    /** Requests per key and minute (default 100). */
    readonly rateLimit?: number
    /** The key's permissions; empty (the default) grants all. */
    readonly permissions?: Record<string, boolean>
    /** Seconds its clock is ahead of ours (its `Date` header). */
    readonly clockOffsetSeconds?: number
  } = {}
) =>
  Effect.gen(function*() {
    const apiKey = `to_fed_${randomBytes(32).toString("hex")}`
    const keyHash = createHash("sha256").update(apiKey).digest("hex")
    const webhookSecret = randomBytes(24).toString("hex")
    const partnerId = options.partnerId ?? 3
    const accounts = new Set(options.accounts ?? [42])
    const maxSeconds = options.maxSeconds ?? 360_000
    const rateLimit = options.rateLimit ?? 100
    const permissions = options.permissions ?? {}
    const transfers: Array<TimeOverflowTransfer> = []
    const webhooks: Array<TimeOverflowWebhook> = []
    const refusals: Array<string> = []
    const buckets = new Map<string, number>()
    let nextId = 7

    const date = () => new Date(Date.now() + (options.clockOffsetSeconds ?? 0) * 1000).toUTCString()
    const answer = (status: number, body: unknown, headers: Record<string, string> = {}): PeerAnswer => ({
      status,
      body,
      headers: { date: date(), ...headers }
    })
    const refuse = (status: number, body: Record<string, unknown>, headers: Record<string, string> = {}) => {
      refusals.push(String(body["error"]))
      return answer(status, body, headers)
    }
    const failure = (status: number, error: string) => refuse(status, { success: false, error })

    /** `authenticate_api_key!` then `enforce_rate_limit!` (`base_controller.rb`). */
    const authenticate = (request: PeerRequest) => {
      const bearer = header(request, "authorization")?.match(/^Bearer (.+)$/)?.[1]
      const presented = header(request, "x-federation-api-key") ?? bearer ?? ""
      if (createHash("sha256").update(presented).digest("hex") !== keyHash) {
        return { refused: refuse(401, { error: "Unauthorized", message: "Invalid or expired API key" }) }
      }
      const bucket = `${keyHash}:${Math.floor(Date.now() / 60_000)}`
      const used = (buckets.get(bucket) ?? 0) + 1
      buckets.set(bucket, used)
      const limits = {
        "x-ratelimit-limit": String(rateLimit),
        "x-ratelimit-remaining": String(Math.max(0, rateLimit - used))
      }
      if (used > rateLimit) {
        return {
          refused: refuse(429, {
            success: false,
            error: "Rate limit exceeded",
            message: `Maximum ${rateLimit} requests per minute`
          }, limits)
        }
      }
      return { limits }
    }

    const createTransfer = (request: PeerRequest, limits: Record<string, string>): PeerAnswer => {
      if (Object.keys(permissions).length > 0 && permissions["transactions"] !== true) {
        return refuse(403, { error: "Forbidden", message: "API key lacks 'transactions' permission" })
      }
      const body = isRecord(request.json) ? request.json : {}
      const required = ["partner_id", "local_account_id", "remote_user_identifier", "amount", "direction"]
      const missing = required.filter((k) => body[k] === undefined || body[k] === null || body[k] === "")
      if (missing.length > 0) return failure(400, `Missing required fields: ${missing.join(", ")}`)
      const amount = body["amount"]
      if (typeof amount !== "number" || !Number.isInteger(amount) || amount <= 0) {
        return failure(400, "amount must be a positive integer (seconds)")
      }
      if (amount > maxSeconds) return failure(400, `amount exceeds maximum (${maxSeconds} seconds)`)
      if (body["direction"] !== "inbound" && body["direction"] !== "outbound") {
        return failure(400, "direction must be inbound or outbound")
      }
      if (body["partner_id"] !== partnerId || !accounts.has(body["local_account_id"] as number)) {
        return failure(404, "Resource not found")
      }
      const externalId = typeof body["external_transaction_id"] === "string" ? body["external_transaction_id"] : null
      const earlier = externalId === null ? undefined : transfers.find((t) => t.external_transaction_id === externalId)
      const record = earlier ?? {
        federation_transaction_id: nextId++,
        external_transaction_id: externalId,
        local_transfer_id: 1234 + transfers.length,
        status: "completed" as const,
        amount,
        direction: String(body["direction"]),
        completed_at: new Date().toISOString(),
        local_account_id: body["local_account_id"] as number,
        remote_user_identifier: String(body["remote_user_identifier"]),
        reason: String(body["reason"] ?? "")
      }
      if (earlier === undefined) transfers.push(record)
      const {
        completed_at,
        direction,
        external_transaction_id,
        federation_transaction_id,
        local_transfer_id,
        status
      } = record
      return answer(earlier === undefined ? 201 : 200, {
        success: true,
        data: {
          federation_transaction_id,
          external_transaction_id,
          local_transfer_id,
          status,
          amount: record.amount,
          direction,
          completed_at
        }
      }, limits)
    }

    /** `verify_webhook_signature!` then `receive` (`webhooks_controller.rb` @36b34074). */
    const receiveWebhook = (request: PeerRequest): PeerAnswer => {
      const body = isRecord(request.json) ? request.json : {}
      if (body["partner_id"] !== partnerId) return failure(404, "Unknown or inactive partner")
      const signature = header(request, "x-federation-signature") ?? header(request, "x-webhook-signature") ?? ""
      const timestamp = header(request, "x-federation-timestamp")
      let verified: TimeOverflowWebhook["verified"]
      if (timestamp !== undefined) {
        const signed = [request.method.toUpperCase(), request.path, timestamp, request.raw].join("\n")
        if (!sameHex(signature, hmacHex(webhookSecret, signed))) return failure(401, "Invalid signature")
        if (Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) return failure(401, "Webhook timestamp expired")
        verified = "four_part"
      } else {
        if (!sameHex(signature, hmacHex(webhookSecret, request.raw))) return failure(401, "Invalid signature")
        verified = "body_only"
      }
      webhooks.push({ path: request.path, body, verified })
      return answer(200, { success: true, data: { received: true, event: body["event"] } })
    }

    const behave = (request: PeerRequest): PeerAnswer => {
      const path = request.path.split("?")[0]
      if (request.method === "GET" && path === "/api/v1/health") {
        return answer(200, {
          success: true,
          data: {
            status: "healthy",
            platform: "timeoverflow",
            version: "1.0.0-federation",
            timestamp: new Date().toISOString(),
            checks: { database: "ok", federation_api: "ok" },
            organizations_count: 1,
            federation_partners_count: 1
          }
        })
      }
      if (request.method === "POST" && path === "/api/v1/webhooks/receive") return receiveWebhook(request)
      const auth = authenticate(request)
      if (auth.refused !== undefined) return auth.refused
      if (request.method === "GET" && path === "/api/v1/organizations") {
        return answer(200, {
          success: true,
          data: [{ id: 1, name: "Riverside TimeOverflow" }],
          meta: { current_page: 1, total_pages: 1, total_count: 1, per_page: 1 }
        }, auth.limits)
      }
      if (request.method === "POST" && path === "/api/v1/transfers") return createTransfer(request, auth.limits)
      return failure(404, "Not found")
    }

    const peer = yield* fakePeer(behave)
    return Object.assign(peer, {
      credentials: { api_key: apiKey, webhook_secret: webhookSecret },
      partnerId,
      accounts,
      transfers,
      webhooks,
      refusals,
      behave
    }) satisfies TimeOverflowPeer
  })
