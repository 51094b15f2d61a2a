// Image bytes, multipart bodies and raw uploads shared by the event image tests (eventImage.test.ts,
// eventImageFiles.test.ts). Uploads stay raw requests: multipart bodies, byte-level checks and edge limits.
import { HttpClient, HttpClientRequest } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { assert } from "@effect/vitest"
import type { Tenant } from "@timebank/domain"
import { Effect, Stream } from "effect"
import { randomBytes } from "node:crypto"
import { join } from "node:path"
import { codeOf, errorsOf, fieldsOf } from "../fixtures/bodies.js"
import { community, type CommunityOptions } from "../fixtures/community.js"
import { makeEvent, type TestEvent } from "../fixtures/events.js"
import { fromIp, randomIp } from "../fixtures/servers.js"

export type Headers = Record<string, string>

export const MiB = 1024 * 1024
export const ascii = (text: string) => Buffer.from(text, "latin1")

/** Image bytes: only the first bytes make the type; the rest pads to the size a test needs. */
export const png = (size = 67) =>
  Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(Math.max(0, size - 8))])
export const jpeg = (size = 40) => Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(size - 4)])
export const webp = (size = 40) =>
  Buffer.concat([ascii("RIFF"), Buffer.from([size - 8, 0, 0, 0]), ascii("WEBPVP8L"), randomBytes(size - 16)])
export const gif = () => Buffer.concat([ascii("GIF89a"), randomBytes(30)])

export interface Part {
  readonly name: string
  readonly value: Uint8Array | string
  readonly filename?: string
  readonly type?: string
}

/** A multipart/form-data body, built by hand so that its length is declared (as browsers do). */
export const multipart = (parts: ReadonlyArray<Part>) => {
  const boundary = `----tb${randomBytes(8).toString("hex")}`
  const chunks: Array<Buffer> = []
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${
      part.filename === undefined ? "" : `; filename="${part.filename}"`
    }`
    const head = `--${boundary}\r\nContent-Disposition: ${disposition}\r\n` +
      (part.type === undefined ? "" : `Content-Type: ${part.type}\r\n`) + "\r\n"
    chunks.push(ascii(head), Buffer.from(part.value), ascii("\r\n"))
  }
  chunks.push(ascii(`--${boundary}--\r\n`))
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` }
}

export const imagePart = (bytes: Uint8Array, type = "image/png", filename = "cover.png"): Part => ({
  name: "image",
  value: bytes,
  filename,
  type
})

/**
 * Posts `body`: with its length declared, or (`chunked`) as a stream of 64 KiB chunks without a length, so that only
 * the server's reading limits can stop it.
 */
export const send = (path: string, headers: Headers, body: Uint8Array, contentType: string, chunked = false) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const chunks = Array.from(
      { length: Math.ceil(body.length / 65536) },
      (_, i) => body.subarray(i * 65536, (i + 1) * 65536)
    )
    const request = HttpClientRequest.post(path).pipe(
      HttpClientRequest.setHeaders({ ...fromIp(randomIp()), ...headers }),
      chunked
        ? HttpClientRequest.bodyStream(Stream.fromIterable(chunks), { contentType })
        : HttpClientRequest.bodyUint8Array(body, contentType)
    )
    const response = yield* client.execute(request)
    const text = yield* response.text
    return {
      status: response.status,
      headers: response.headers,
      text,
      body: (response.headers["content-type"] ?? "").includes("json") && text !== ""
        ? JSON.parse(text) as unknown
        : undefined
    }
  }).pipe(Effect.scoped, Effect.orDie)

export const upload = (event: { readonly id: number }, headers: Headers, parts: ReadonlyArray<Part>) => {
  const { body, contentType } = multipart(parts)
  return send(`/api/v2/events/${event.id}/image`, headers, body, contentType)
}

export const getBytes = (path: string) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const response = yield* client.execute(HttpClientRequest.get(path))
    return { status: response.status, headers: response.headers, bytes: Buffer.from(yield* response.arrayBuffer) }
  }).pipe(Effect.scoped, Effect.orDie)

export const coverOf = (id: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ cover_image: string | null }>`SELECT cover_image FROM events WHERE id = ${id}`.pipe(
        Effect.map((rows) => rows[0]!.cover_image)
      )
  )

/** Where the store keeps an event's files under `uploadsDir`. */
export const storedFor = (uploadsDir: string, tenant: Tenant, event: { readonly id: number }) =>
  join(uploadsDir, "events", String(tenant.id), String(event.id))

/**
 * The shared community with an event of `member` (the organiser here); `other` is a member without one.
 */
export const withEvent = (options: CommunityOptions = {}) =>
  Effect.gen(function*() {
    const c = yield* community({ signIn: "token", ...options })
    return {
      ...c,
      organiser: c.member,
      event: yield* makeEvent(c.member),
      organiserHeaders: c.member.headers,
      memberHeaders: c.other.headers
    }
  })

/** Makes `template` a recurring template and the given events its occurrences. */
export const makeSeries = (template: TestEvent, occurrences: ReadonlyArray<TestEvent>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.zipRight(
      sql`UPDATE events SET is_recurring_template = true WHERE id = ${template.id}`,
      sql`UPDATE events SET parent_event_id = ${template.id} WHERE id IN ${sql.in(occurrences.map((o) => o.id))}`
    )).pipe(Effect.orDie)

export const expectImage422 = (res: { status: number; text: string; body: unknown }, message?: RegExp) => {
  assert.strictEqual(res.status, 422, res.text)
  assert.strictEqual(codeOf(res.body), "VALIDATION_ERROR")
  assert.deepStrictEqual(fieldsOf(res.body), ["image"])
  if (message) assert.match(errorsOf(res.body)[0]!.message, message)
}

export interface OpenApiDoc {
  readonly paths: Record<
    string,
    Record<string, {
      readonly requestBody?: {
        readonly content: Record<string, {
          readonly schema: {
            readonly required: ReadonlyArray<string>
            readonly properties: Record<
              string,
              { readonly items: { readonly $ref: string }; readonly maxItems: number }
            >
          }
        }>
      }
    }>
  >
  readonly components: { readonly schemas: Record<string, unknown> }
}
