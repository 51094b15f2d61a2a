import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { createECDH } from "node:crypto"
import { runCli } from "../fixtures/processes.js"

describe("cli push vapid-keys", () => {
  it.effect(
    "prints a new P-256 key pair whose halves belong together, as env lines or JSON",
    () =>
      Effect.gen(function*() {
        // No DATABASE_URL: generating keys must not need (or start) a database.
        const text = yield* runCli({ DATA_DIR: "/nonexistent/push-cli" }, "push", "vapid-keys")
        assert.strictEqual(text.code, 0, text.stderr)
        const match = /^VAPID_PUBLIC_KEY=([A-Za-z0-9_-]+)\nVAPID_PRIVATE_KEY=([A-Za-z0-9_-]+)\n$/.exec(text.stdout)
        assert.isNotNull(match, text.stdout)
        const ecdh = createECDH("prime256v1")
        ecdh.setPrivateKey(Buffer.from(match![2]!, "base64url"))
        assert.strictEqual(ecdh.getPublicKey().toString("base64url"), match![1])

        const json = yield* runCli({ DATA_DIR: "/nonexistent/push-cli" }, "push", "vapid-keys", "--json")
        assert.strictEqual(json.code, 0, json.stderr)
        const keys = JSON.parse(json.stdout) as { public_key: string; private_key: string }
        assert.deepStrictEqual(Object.keys(keys).sort(), ["private_key", "public_key"])
        assert.strictEqual(Buffer.from(keys.public_key, "base64url").length, 65)
        assert.notStrictEqual(keys.public_key, match![1], "a new pair on every run")
      }),
    60_000
  )
})
