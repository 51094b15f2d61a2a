import { Effect } from "effect"
import { randomBytes, scrypt, type ScryptOptions, timingSafeEqual } from "node:crypto"

/** scrypt (memory-hard) parameters: N=2^15 uses 32 MiB and about 50-100 ms per hash on this class of machine. */
const PARAMS = { N: 32768, r: 8, p: 1, maxmem: 64 * 1024 * 1024 } as const
const KEY_LENGTH = 64

const derive = (password: string, salt: Buffer, options: ScryptOptions) =>
  Effect.async<Buffer>((resume) => {
    scrypt(password.normalize("NFKC"), salt, KEY_LENGTH, options, (error, key) => {
      resume(error ? Effect.die(error) : Effect.succeed(key))
    })
  })

/** `scrypt$N$r$p$salt$key`, base64url parts. */
export const hashPassword = (password: string) =>
  Effect.gen(function*() {
    const salt = randomBytes(16)
    const key = yield* derive(password, salt, PARAMS)
    return ["scrypt", PARAMS.N, PARAMS.r, PARAMS.p, salt.toString("base64url"), key.toString("base64url")].join("$")
  }).pipe(Effect.withSpan("Password.hash"))

/** Checks a password against a stored hash in constant time; a malformed hash never matches. */
export const verifyPassword = (password: string, stored: string) =>
  Effect.gen(function*() {
    const [scheme, n, r, p, salt, key] = stored.split("$")
    if (scheme !== "scrypt" || !n || !r || !p || !salt || !key) return false
    const expected = Buffer.from(key, "base64url")
    const actual = yield* derive(password, Buffer.from(salt, "base64url"), {
      N: Number(n),
      r: Number(r),
      p: Number(p),
      maxmem: PARAMS.maxmem
    })
    return actual.length === expected.length && timingSafeEqual(actual, expected)
  }).pipe(Effect.withSpan("Password.verify"))

/**
 * A hash of a random password. Logins for unknown e-mails verify against it, so they take as long as real ones
 * and do not reveal which e-mails have accounts.
 */
export const decoyHash = Effect.runSync(Effect.cached(hashPassword(randomBytes(16).toString("hex"))))
