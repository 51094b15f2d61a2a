import { Effect } from "effect"
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto"
import { type FakePeer, fakePeer, type PeerAnswer, type PeerRequest } from "./fakePeer.js"

/**
 * A native partner (decisions D13, D16) on {@link fakePeer}: it checks our calls as a real native peer does, with
 * its own HMAC code (not ours): bearer = the key it issued us, `X-Federation-Platform-ID` = that key's first 12
 * characters, a unix-seconds timestamp within ±300 s, a nonce of 8–128 characters used once, and the hex
 * HMAC-SHA256 of `METHOD\nPATH?QUERY\nTIMESTAMP\nNONCE\nBODY` with the signing secret. It credits its members on
 * `POST /api/v1/federation/transactions` and answers like our own API (`timebank`: D13a's 201
 * `{data: {id, external_id, …}}`, the same `external_id` again 200) or like NEXUS (`nexus`: fixtures/nexus/03, the id
 * in `transaction_id`), and lists them on `GET`. Tests replace `handle` for failures and hangs.
 */

const TRANSACTIONS = "/api/v1/federation/transactions"

export interface NativePeer extends FakePeer {
  /** What we store as the partner's credentials. */
  readonly credentials: { readonly api_key: string; readonly signing_secret: string }
  /** The peer's members (recipient ids that exist there). */
  readonly members: ReadonlySet<number>
  /** Credits the peer accepted, by `external_id`. */
  readonly credits: Map<string, Record<string, unknown>>
  /** Why each refused call was refused (`SIGNATURE_INVALID`, …), in order. */
  readonly refusals: Array<string>
  /** The peer's own behaviour (verify, then credit or list): a test's `handle` may fall back to it. */
  readonly behave: (request: PeerRequest) => PeerAnswer
}

const hmacHex = (secret: string, text: string) => createHmac("sha256", secret).update(text, "utf8").digest("hex")

const sameHex = (a: string, b: string) =>
  /^[0-9a-f]{64}$/i.test(a) && timingSafeEqual(Buffer.from(a.toLowerCase(), "hex"), Buffer.from(b, "hex"))

const header = (request: PeerRequest, name: string) => {
  const value = request.headers[name]
  return Array.isArray(value) ? value[0] : value
}

const positiveInt = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v) && v > 0

export const nativePeer = (
  options: { readonly dialect?: "timebank" | "nexus"; readonly members?: ReadonlyArray<number> } = {}
) =>
  Effect.gen(function*() {
    const dialect = options.dialect ?? "timebank"
    const apiKey = `tbk_${randomBytes(32).toString("hex")}`
    const secret = `tbs_${randomBytes(32).toString("hex")}`
    const members = new Set(options.members ?? [42])
    const credits = new Map<string, Record<string, unknown>>()
    const nonces = new Set<string>()
    const refusals: Array<string> = []
    let nextId = 991

    const error = (status: number, code: string, message: string, field?: string): PeerAnswer => {
      if (status === 401 || status === 403) refusals.push(code)
      return dialect === "nexus"
        ? { status, body: { error: true, code, message, timestamp: new Date().toISOString() } }
        : { status, body: { errors: [{ code, message, ...(field === undefined ? {} : { field }) }] } }
    }

    /** The refusal of a call whose credentials or signature do not hold, else undefined. */
    const authRefusal = (request: PeerRequest): PeerAnswer | undefined => {
      if (header(request, "authorization") !== `Bearer ${apiKey}`) return error(401, "INVALID_API_KEY", "Bad key")
      if (header(request, "x-federation-platform-id") !== apiKey.slice(0, 12)) {
        return error(401, "INVALID_API_KEY", "Unknown platform id")
      }
      const timestamp = header(request, "x-federation-timestamp") ?? ""
      if (!/^\d{1,12}$/.test(timestamp) || Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) {
        return error(401, "TIMESTAMP_INVALID", "Timestamp outside the window")
      }
      const nonce = header(request, "x-federation-nonce") ?? ""
      if (!/^[\x21-\x7e]{8,128}$/.test(nonce)) return error(401, "SIGNATURE_INVALID", "Bad nonce")
      const signed = [request.method, request.path, timestamp, nonce, request.method === "GET" ? "" : request.raw]
        .join("\n")
      if (!sameHex(header(request, "x-federation-signature") ?? "", hmacHex(secret, signed))) {
        return error(401, "SIGNATURE_INVALID", "Invalid request signature")
      }
      if (nonces.has(nonce)) return error(409, "REPLAY_DETECTED", "Nonce already used")
      nonces.add(nonce)
      return undefined
    }

    const credited = (credit: Record<string, unknown>, status: number): PeerAnswer =>
      dialect === "nexus"
        ? {
          status,
          body: {
            success: true,
            timestamp: new Date().toISOString(),
            transaction_id: credit["id"],
            status: "completed",
            amount: credit["amount"],
            note: "Transaction completed successfully"
          }
        }
        : { status, body: { data: credit, meta: {} } }

    const createCredit = (request: PeerRequest): PeerAnswer => {
      const body = request.json as Record<string, unknown> | undefined
      const sender = body?.["sender"] as Record<string, unknown> | undefined
      if (
        body === undefined || typeof body["external_id"] !== "string" || !positiveInt(body["recipient_id"]) ||
        typeof body["amount"] !== "number" || !(body["amount"] > 0) || typeof body["description"] !== "string" ||
        typeof sender?.["name"] !== "string" || typeof sender["external_id"] !== "string"
      ) return error(422, "VALIDATION_ERROR", "Invalid body")
      const earlier = credits.get(body["external_id"])
      if (earlier !== undefined) return credited(earlier, 200)
      if (!members.has(body["recipient_id"])) return error(404, "NOT_FOUND", "Member not found", "recipient_id")
      const credit = {
        id: nextId++,
        external_id: body["external_id"],
        recipient_id: body["recipient_id"],
        amount: body["amount"],
        description: body["description"],
        status: "completed",
        sender: { name: sender["name"], external_id: sender["external_id"] },
        created_at: new Date().toISOString()
      }
      credits.set(body["external_id"], credit)
      return credited(credit, 201)
    }

    const behave = (request: PeerRequest): PeerAnswer => {
      const refused = authRefusal(request)
      if (refused !== undefined) return refused
      const path = request.path.split("?")[0]
      if (path !== TRANSACTIONS) return error(404, "NOT_FOUND", "No such route")
      if (request.method === "POST") return createCredit(request)
      if (request.method === "GET") {
        const data = [...credits.values()].reverse().slice(0, 1)
        return { status: 200, body: { data, meta: { per_page: 1, has_more: credits.size > 1 } } }
      }
      return error(405, "METHOD_NOT_ALLOWED", "Method not allowed")
    }

    const peer = yield* fakePeer(behave)
    return Object.assign(peer, {
      credentials: { api_key: apiKey, signing_secret: secret },
      members,
      credits,
      refusals,
      behave
    }) satisfies NativePeer as NativePeer
  })
