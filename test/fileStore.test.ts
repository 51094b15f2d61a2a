import { HttpServer } from "@effect/platform"
import { afterAll, assert, describe, it as plain, layer } from "@effect/vitest"
import { AppConfig, contentTypeOf, FileStore, isValidKey, UPLOAD_CACHE_CONTROL, uploadKey } from "@timebank/server"
import { ConfigProvider, Effect, Exit, Layer } from "effect"
import { randomBytes } from "node:crypto"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { request } from "node:http"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { TestApp } from "./fixtures/TestApp.js"

const base = mkdtempSync(join(tmpdir(), "tb-filestore-"))
const uploadsDir = join(base, "uploads")
afterAll(() => rmSync(base, { recursive: true, force: true }))

// A file next to the uploads folder that no request may reach.
const SECRET = "not for the public"
writeFileSync(join(base, "secret.png"), SECRET)

interface RawResponse {
  readonly status: number
  readonly headers: Record<string, string | Array<string> | undefined>
  readonly body: Buffer
}

/** A request with the path exactly as written (no client-side normalisation of `..` or `%2e`). */
const rawGet = (path: string, method = "GET") =>
  Effect.flatMap(HttpServer.HttpServer, (server) =>
    Effect.async<RawResponse>((resume) => {
      const port = server.address._tag === "TcpAddress" ? server.address.port : 0
      const req = request({ host: "127.0.0.1", port, path, method }, (res) => {
        const chunks: Array<Buffer> = []
        res.on("data", (c: Buffer) => chunks.push(c))
        res.on("end", () =>
          resume(Effect.succeed({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) })))
      })
      req.on("error", (e) =>
        resume(Effect.die(e)))
      req.end()
    }))

const jsonCode = (res: RawResponse) =>
  (JSON.parse(res.body.toString("utf8")) as { errors: Array<{ code: string }> })
    .errors[0]!.code

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(64)])

const put = (key: string, bytes: Uint8Array, type: string) =>
  Effect.flatMap(FileStore, (store) => store.put(key, bytes, type)).pipe(Effect.provide(FileStore.Default))

describe("file store keys", () => {
  plain("isValidKey accepts plain relative paths and refuses traversal, absolute paths and odd characters", () => {
    for (const key of ["a.png", "events/1/2/abc.png", "x_y-z.1/b.webp"]) assert.isTrue(isValidKey(key), key)
    const bad = [
      "",
      "..",
      "../a.png",
      "a/../b.png",
      "a/./b.png",
      "./a.png",
      "/etc/passwd",
      "a//b.png",
      "a/",
      ".hidden",
      "a\\..\\b",
      "a b.png",
      "a%2fb",
      "é.png",
      "a\u0000.png",
      "a/".repeat(9) + "b",
      "x".repeat(600)
    ]
    for (const key of bad) assert.isFalse(isValidKey(key), JSON.stringify(key))
  })

  plain(
    "uploadKey gives a random name under the folders with the type's extension; contentTypeOf reads it back",
    () => {
      const key = uploadKey(["events", 7, 42], "image/webp")
      assert.match(key, /^events\/7\/42\/[0-9a-f]{32}\.webp$/)
      assert.notStrictEqual(uploadKey(["events"], "image/png"), uploadKey(["events"], "image/png"))
      assert.isTrue(isValidKey(key))
      assert.strictEqual(contentTypeOf(key), "image/webp")
      assert.strictEqual(contentTypeOf("a/b.JPG"), "image/jpeg")
      assert.strictEqual(contentTypeOf("a/b.jpeg"), "image/jpeg")
      assert.strictEqual(contentTypeOf("a/b.png"), "image/png")
      assert.strictEqual(contentTypeOf("a/b.txt"), "application/octet-stream")
      assert.throws(() => uploadKey(["x"], "image/gif"))
    }
  )
})

describe("file store configuration", () => {
  const rootWith = (env: Record<string, string>) =>
    Effect.map(FileStore, (store) => store.root).pipe(
      Effect.provide(FileStore.Default.pipe(
        Layer.provide(AppConfig.Default),
        Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))))
      ))
    )

  plain.effect(
    "UPLOADS_DIR wins; unset, uploads live in <DATA_DIR>/uploads (DATA_DIR default ./.data)",
    () =>
      Effect.gen(function*() {
        assert.strictEqual(yield* rootWith({ UPLOADS_DIR: "/srv/files", DATA_DIR: "/var/tb" }), "/srv/files")
        assert.strictEqual(yield* rootWith({ DATA_DIR: "/var/tb" }), "/var/tb/uploads")
        assert.strictEqual(yield* rootWith({}), resolve(".data/uploads"))
      })
  )
})

layer(TestApp({ UPLOADS_DIR: uploadsDir }), { excludeTestServices: true, timeout: "120 seconds" })(
  "file store",
  (it) => {
    it.effect("put writes under UPLOADS_DIR and returns /uploads/<key>; GET serves it with type and caching", () =>
      Effect.gen(function*() {
        const key = uploadKey(["events", 1, 2], "image/png")
        const url = yield* put(key, PNG, "image/png")
        assert.strictEqual(url, `/uploads/${key}`)
        assert.deepStrictEqual(readFileSync(join(uploadsDir, key)), PNG)

        for (const path of [url, `${url}?v=2`]) {
          const res = yield* rawGet(path)
          assert.strictEqual(res.status, 200, path)
          assert.deepStrictEqual(res.body, PNG)
          assert.strictEqual(res.headers["content-type"], "image/png")
          assert.strictEqual(res.headers["cache-control"], UPLOAD_CACHE_CONTROL)
          assert.strictEqual(res.headers["x-content-type-options"], "nosniff")
          assert.isString(res.headers["x-request-id"])
        }
      }))

    it.effect("a second put of another key leaves the first; a .partial file never stays behind", () =>
      Effect.gen(function*() {
        const first = uploadKey(["events", 3, 4], "image/jpeg")
        const second = uploadKey(["events", 3, 4], "image/jpeg")
        const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3])
        yield* put(first, jpeg, "image/jpeg")
        yield* put(second, Buffer.from([0xff, 0xd8, 0xff, 0xdb]), "image/jpeg")
        assert.deepStrictEqual(readFileSync(join(uploadsDir, first)), jpeg)
        const res = yield* rawGet(`/uploads/${first}`)
        assert.strictEqual(res.headers["content-type"], "image/jpeg")
        assert.deepStrictEqual(readdirSync(join(uploadsDir, "events/3/4")).filter((f) => f.endsWith(".partial")), [])
      }))

    it.effect("put refuses (as a defect) keys that could leave the folder or do not match the type", () =>
      Effect.gen(function*() {
        for (const key of ["../escape.png", "/tmp/abs.png", "a/../../b.png", ""]) {
          const exit = yield* Effect.exit(put(key, PNG, "image/png"))
          assert.isTrue(Exit.isFailure(exit), key)
        }
        const mismatch = yield* Effect.exit(put("events/x.png", PNG, "image/jpeg"))
        assert.isTrue(Exit.isFailure(mismatch))
        assert.isFalse(existsSync(join(base, "escape.png")))
        assert.isFalse(existsSync(join(uploadsDir, "events/x.png")))
      }))

    it.effect("missing files and folders are 404; get answers none for them", () =>
      Effect.gen(function*() {
        mkdirSync(join(uploadsDir, "events/9"), { recursive: true })
        for (const path of ["/uploads/events/9/nothing.png", "/uploads/events/9", "/uploads/events", "/uploads/nope"]) {
          const res = yield* rawGet(path)
          assert.strictEqual(res.status, 404, path)
          assert.strictEqual(jsonCode(res), "NOT_FOUND")
        }
        const none = yield* Effect.flatMap(FileStore, (store) => store.get("events/9")).pipe(
          Effect.provide(FileStore.Default)
        )
        assert.isTrue(none._tag === "None")
      }))

    it.effect("traversal attempts never reach files outside the folder: 400 (bad path) or 404", () =>
      Effect.gen(function*() {
        const attempts = [
          "/uploads/../secret.png",
          "/uploads/..%2fsecret.png",
          "/uploads/..%2Fsecret.png",
          "/uploads/%2e%2e/secret.png",
          "/uploads/%2e%2e%2fsecret.png",
          "/uploads/events/..%2f..%2fsecret.png",
          "/uploads/%2fetc%2fpasswd",
          "/uploads//etc/passwd",
          "/uploads/..\\secret.png",
          "/uploads/..%5csecret.png",
          "/uploads/.%2e/secret.png",
          "/uploads/%252e%252e%252fsecret.png",
          "/uploads/%E0%A4%A",
          "/uploads/secret.png%00.png",
          "/uploads/"
        ]
        for (const path of attempts) {
          const res = yield* rawGet(path)
          assert.include([400, 404], res.status, `${path} → ${res.status}`)
          assert.notInclude(res.body.toString("utf8"), SECRET, path)
          assert.include(["BAD_REQUEST", "INVALID_REQUEST", "NOT_FOUND"], jsonCode(res), path)
        }
        // Encoded traversal that a router leaves alone reaches the handler and is refused as a bad path.
        const encoded = yield* rawGet("/uploads/..%2fsecret.png")
        assert.strictEqual(encoded.status, 400)
        assert.strictEqual(jsonCode(encoded), "BAD_REQUEST")
      }))

    it.effect("other methods on /uploads/* → 405 with Allow: GET", () =>
      Effect.gen(function*() {
        const res = yield* rawGet("/uploads/events/1/x.png", "DELETE")
        assert.strictEqual(res.status, 405)
        assert.strictEqual(jsonCode(res), "METHOD_NOT_ALLOWED")
        assert.strictEqual(res.headers["allow"], "GET")
      }))
  }
)
