import { createHmac, timingSafeEqual } from "node:crypto"

/**
 * The HMAC form of decisions D13, pure so it can be tested with vectors: partners sign their calls to us with it,
 * and we sign our webhooks and test calls to partners with it.
 */

/** How far a request's timestamp may lie from our clock. */
export const CLOCK_WINDOW_SECONDS = 300

/** How long a nonce stays used (it must outlive the clock window on both sides). */
export const NONCE_TTL_SECONDS = 600

export const HEADER_PLATFORM_ID = "x-federation-platform-id"
export const HEADER_TIMESTAMP = "x-federation-timestamp"
export const HEADER_NONCE = "x-federation-nonce"
export const HEADER_SIGNATURE = "x-federation-signature"

/** `METHOD\nPATH\nTIMESTAMP\nNONCE\nBODY`: PATH with its query string exactly as sent, BODY empty for a GET. */
export const canonicalString = (parts: {
  readonly method: string
  readonly path: string
  readonly timestamp: string
  readonly nonce: string
  readonly body: string
}) => [parts.method.toUpperCase(), parts.path, parts.timestamp, parts.nonce, parts.body].join("\n")

/** Hex HMAC-SHA256 of `canonical` with `secret` used as its literal UTF-8 string. */
export const signCanonical = (secret: string, canonical: string) =>
  createHmac("sha256", Buffer.from(secret, "utf8")).update(canonical, "utf8").digest("hex")

/** Whether `signature` (hex, any case) is the HMAC of `canonical`, compared in constant time. */
export const signatureHolds = (secret: string, canonical: string, signature: string) => {
  if (!/^[0-9a-fA-F]{64}$/.test(signature)) return false
  const expected = Buffer.from(signCanonical(secret, canonical), "hex")
  return timingSafeEqual(expected, Buffer.from(signature.toLowerCase(), "hex"))
}

/** Unix seconds, as `X-Federation-Timestamp` carries them: digits only, no sign, no fraction. */
export const parseTimestamp = (text: string): number | undefined => /^\d{1,12}$/.test(text) ? Number(text) : undefined

/** Whether `timestamp` (unix seconds) lies within the clock window of `nowMillis`. */
export const timestampInWindow = (timestamp: number, nowMillis: number) =>
  Math.abs(Math.floor(nowMillis / 1000) - timestamp) <= CLOCK_WINDOW_SECONDS

/** A nonce is 8 to 128 characters of printable ASCII. */
export const nonceWellFormed = (nonce: string) => /^[\x21-\x7e]{8,128}$/.test(nonce)

/** The four `X-Federation-*` headers of a signed request (outbound webhooks, test calls). */
export const signedHeaders = (input: {
  readonly secret: string
  readonly platformId: string
  readonly method: string
  readonly path: string
  readonly body: string
  readonly nonce: string
  readonly nowMillis: number
}): Record<string, string> => {
  const timestamp = String(Math.floor(input.nowMillis / 1000))
  const canonical = canonicalString({ ...input, timestamp })
  return {
    [HEADER_PLATFORM_ID]: input.platformId,
    [HEADER_TIMESTAMP]: timestamp,
    [HEADER_NONCE]: input.nonce,
    [HEADER_SIGNATURE]: signCanonical(input.secret, canonical)
  }
}
