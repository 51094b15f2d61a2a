import { FileSystem, HttpServerRequest, HttpServerResponse, Path } from "@effect/platform"
import { NodeFileSystem, NodePath } from "@effect/platform-node"
import { Effect, Layer, Option } from "effect"
import { randomBytes } from "node:crypto"
import { AppConfig } from "./AppConfig.js"
import { errorJson } from "./HttpEdge.js"
import { pathOf } from "./RouteTable.js"

/** Public URL path under which stored files are served (`GET /uploads/<key>`). */
export const UPLOADS_PATH = "/uploads"

/** Stored files never change (every upload gets a new random key), so clients and proxies may keep them. */
export const UPLOAD_CACHE_CONTROL = "public, max-age=31536000, immutable"

const EXTENSIONS: Readonly<Record<string, string>> = {
  "image/jpeg": "jpg",
  "image/png": "png",
  "image/webp": "webp"
}
const CONTENT_TYPES: Readonly<Record<string, string>> = {
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  png: "image/png",
  webp: "image/webp"
}

/** The content type a key's extension stands for. */
export const contentTypeOf = (key: string): string =>
  CONTENT_TYPES[key.slice(key.lastIndexOf(".") + 1).toLowerCase()] ?? "application/octet-stream"

const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/
const MAX_KEY_LENGTH = 512
const MAX_SEGMENTS = 8

/**
 * A key names a file below the store's root: slash-separated segments of letters, digits, `.`, `_` and `-`, none
 * starting with a dot. So `..`, `.` and hidden files, absolute paths, backslashes and empty segments are refused
 * before the file system is ever asked.
 */
export const isValidKey = (key: string): boolean => {
  if (key.length === 0 || key.length > MAX_KEY_LENGTH) return false
  const segments = key.split("/")
  return segments.length <= MAX_SEGMENTS && segments.every((s) => SEGMENT.test(s))
}

/** A fresh key `<folders...>/<random>.<ext>` for a file of `contentType` (one of the image types we store). */
export const uploadKey = (folders: ReadonlyArray<string | number>, contentType: string): string => {
  const ext = EXTENSIONS[contentType]
  if (ext === undefined) throw new Error(`no extension for ${contentType}`)
  return [...folders.map(String), `${randomBytes(16).toString("hex")}.${ext}`].join("/")
}

/** The key of a URL path `put` returned (`/uploads/<key>`); none for anything else (an outside URL, a bad key). */
export const keyOfUrl = (url: string): Option.Option<string> => {
  const prefix = `${UPLOADS_PATH}/`
  if (!url.startsWith(prefix)) return Option.none()
  const key = url.slice(prefix.length)
  return isValidKey(key) ? Option.some(key) : Option.none()
}

/** A stored file as `get` returns it. */
export interface StoredFile {
  readonly bytes: Uint8Array
  readonly contentType: string
}

/**
 * Where uploaded files live. The default keeps them in a local folder (`UPLOADS_DIR`, default `<DATA_DIR>/uploads`)
 * and serves them at `/uploads/<key>`; another store (object storage) only has to keep the same three methods.
 * File-system failures are defects: a store that cannot write is an outage, not an answer to the client.
 */
export class FileStore extends Effect.Service<FileStore>()("FileStore", {
  dependencies: [Layer.merge(NodeFileSystem.layer, NodePath.layer)],
  effect: Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const config = yield* AppConfig
    const root = path.resolve(Option.getOrElse(config.uploadsDir, () => path.join(config.dataDir, "uploads")))

    /** The absolute path of a key; dies on a key that is not valid or would leave the root (a bug of the caller). */
    const fileOf = (key: string) => {
      const file = path.resolve(root, key)
      return isValidKey(key) && file.startsWith(root + path.sep)
        ? Effect.succeed(file)
        : Effect.dieMessage(`invalid file store key: ${key}`)
    }

    /** Writes `bytes` under `key` (atomically: a reader never sees half a file) and returns its public URL path. */
    const put = (key: string, bytes: Uint8Array, contentType: string) =>
      Effect.gen(function*() {
        if (contentTypeOf(key) !== contentType) {
          return yield* Effect.dieMessage(`key ${key} does not match content type ${contentType}`)
        }
        const file = yield* fileOf(key)
        yield* fs.makeDirectory(path.dirname(file), { recursive: true })
        const partial = `${file}.${randomBytes(6).toString("hex")}.partial`
        yield* fs.writeFile(partial, bytes)
        yield* fs.rename(partial, file)
        return `${UPLOADS_PATH}/${key}`
      }).pipe(Effect.orDie, Effect.withSpan("FileStore.put", { attributes: { key, bytes: bytes.length } }))

    /** The file under `key`, if there is one (a folder is not a file). */
    const get = (key: string) =>
      Effect.gen(function*() {
        if (!isValidKey(key)) return Option.none<StoredFile>()
        const file = yield* fileOf(key)
        const info = yield* fs.stat(file).pipe(
          Effect.map(Option.some),
          Effect.catchIf((e) => e._tag === "SystemError" && e.reason === "NotFound", () => Effect.succeedNone)
        )
        if (Option.isNone(info) || info.value.type !== "File") return Option.none<StoredFile>()
        const bytes = yield* fs.readFile(file)
        return Option.some<StoredFile>({ bytes, contentType: contentTypeOf(key) })
      }).pipe(Effect.orDie, Effect.withSpan("FileStore.get", { attributes: { key } }))

    /**
     * Deletes the file under `key`; `false` when there was none (already gone is not a failure). Unlike `put` and
     * `get`, a failure is the caller's to handle: deleting is clean-up, which callers log rather than fail on.
     */
    const remove = (key: string) =>
      Effect.gen(function*() {
        if (!isValidKey(key)) return false
        const file = yield* fileOf(key)
        return yield* fs.remove(file).pipe(
          Effect.as(true),
          Effect.catchIf((e) => e._tag === "SystemError" && e.reason === "NotFound", () => Effect.succeed(false))
        )
      }).pipe(Effect.withSpan("FileStore.remove", { attributes: { key } }))

    return { root, put, get, remove } as const
  })
}) {}

const single = (status: number, code: string, message: string) => errorJson(status, { errors: [{ code, message }] })

/**
 * `GET /uploads/<key>`: a stored file with its content type and long-lived caching. A path that is not a valid key
 * (`..`, encoded slashes or dots, absolute paths) is a 400; a valid key without a file a 404.
 */
export const serveUpload = (store: FileStore) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const pathname = pathOf(request.url)
    let key: string
    try {
      key = decodeURIComponent(pathname.slice(UPLOADS_PATH.length + 1))
    } catch {
      return single(400, "BAD_REQUEST", "Invalid file path")
    }
    if (!isValidKey(key)) return single(400, "BAD_REQUEST", "Invalid file path")
    const file = yield* store.get(key)
    if (Option.isNone(file)) return single(404, "NOT_FOUND", "No such file")
    return HttpServerResponse.uint8Array(file.value.bytes, {
      contentType: file.value.contentType,
      headers: { "cache-control": UPLOAD_CACHE_CONTROL, "x-content-type-options": "nosniff" }
    })
  })
