import { createHash, randomBytes } from "node:crypto"

/** Lifetimes of decisions D4. */
export const ACCESS_TOKEN_SECONDS = 900
export const REFRESH_TOKEN_SECONDS = 2_592_000
export const IMPERSONATION_SECONDS = 300
/** A consumed refresh token presented again within this window is a race of the same client, not a theft. */
export const REFRESH_GRACE_MILLIS = 5_000

/** An opaque bearer secret: 256 random bits. Only its SHA-256 is stored. */
export const newToken = (): string => randomBytes(32).toString("base64url")

export const hashToken = (token: string): string => createHash("sha256").update(token).digest("hex")

/** Legacy tokens are JWTs (three base64url parts); current tokens never contain a dot. */
export const looksLikeJwt = (token: string): boolean => /^[\w-]+\.[\w-]+\.[\w-]*$/.test(token)
