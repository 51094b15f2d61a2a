import { Config, Effect, Option, Redacted } from "effect"
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from "node:crypto"
import { mkdir, readFile, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { AppConfig } from "./AppConfig.js"

const ALGORITHM = "aes-256-gcm"
const VERSION = "v1"

/** `SECRETS_KEY` is 32 bytes as 64 hex characters or as base64. */
const parseKey = (text: string): Buffer => {
  const trimmed = text.trim()
  const key = /^[0-9a-fA-F]{64}$/.test(trimmed) ? Buffer.from(trimmed, "hex") : Buffer.from(trimmed, "base64")
  if (key.length !== 32) throw new Error("SECRETS_KEY must be 32 bytes (64 hex characters or base64)")
  return key
}

/** The key of a deployment without `SECRETS_KEY`: made once into `DATA_DIR/secrets.key` (mode 0600) and reused. */
const keyFromDataDir = (dataDir: string) =>
  Effect.promise(async () => {
    const path = join(dataDir, "secrets.key")
    try {
      return parseKey(await readFile(path, "utf8"))
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e
      await mkdir(dataDir, { recursive: true })
      const fresh = randomBytes(32).toString("hex")
      // `wx`: when two processes race, the second fails here and reads the first one's key.
      await writeFile(path, fresh, { mode: 0o600, flag: "wx" }).catch(() => undefined)
      return parseKey(await readFile(path, "utf8"))
    }
  })

/**
 * Secrets at rest (partners' credentials, keys' signing secrets): AES-256-GCM under `SECRETS_KEY`, each box
 * `v1.<iv>.<tag>.<ciphertext>` in base64url with a fresh 12-byte IV. A box that does not open (another key, a
 * changed byte) is a defect: stored secrets are never half-read.
 */
export class SecretBox extends Effect.Service<SecretBox>()("SecretBox", {
  effect: Effect.gen(function*() {
    // A malformed SECRETS_KEY is a deployment mistake: the process must not start with it.
    const configured = yield* Effect.orDie(Config.option(Config.redacted("SECRETS_KEY")))
    const key = yield* Option.match(configured, {
      onSome: (value) => Effect.sync(() => parseKey(Redacted.value(value))),
      onNone: () => Effect.flatMap(AppConfig, (config) => keyFromDataDir(config.dataDir))
    })

    const seal = (plaintext: string): string => {
      const iv = randomBytes(12)
      const cipher = createCipheriv(ALGORITHM, key, iv)
      const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()])
      return [VERSION, iv, cipher.getAuthTag(), body].map((p) => typeof p === "string" ? p : p.toString("base64url"))
        .join(".")
    }

    const open = (box: string): string => {
      const [version, iv, tag, body] = box.split(".")
      if (version !== VERSION || iv === undefined || tag === undefined || body === undefined) {
        throw new Error("not a sealed secret")
      }
      const decipher = createDecipheriv(ALGORITHM, key, Buffer.from(iv, "base64url"))
      decipher.setAuthTag(Buffer.from(tag, "base64url"))
      return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8")
    }

    return {
      /**
       * A key of its own for one purpose (`"federation-jwt"`), derived from the secrets key: every runner derives
       * the same one, and it changes when the secrets key does.
       */
      derive: (purpose: string): Buffer => createHmac("sha256", key).update(`timebank:${purpose}`).digest(),
      seal: (plaintext: string) => Effect.sync(() => seal(plaintext)),
      open: (box: string) => Effect.sync(() => open(box))
    } as const
  })
}) {}
