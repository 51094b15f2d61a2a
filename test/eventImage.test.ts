import { HttpClient, HttpClientRequest } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { afterAll, assert, describe, it as plain, layer } from "@effect/vitest"
import { Api, EVENT_IMAGE_MAX_BODY_BYTES, type Tenant } from "@timebank/domain"
import {
  checkImage,
  hasMultipartBoundary,
  keyOfUrl,
  RouteTable,
  seriesRootOf,
  sniffImageType,
  UPLOAD_CACHE_CONTROL
} from "@timebank/server"
import { Effect, Option, Stream } from "effect"
import { randomBytes } from "node:crypto"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { codeOf, errorsOf, fieldsOf } from "./fixtures/bodies.js"
import { makeEvent, type TestEvent } from "./fixtures/events.js"
import { fromIp, randomIp } from "./fixtures/servers.js"
import { makeTenant, tenantHeaders } from "./fixtures/tenants.js"
import { TestApp } from "./fixtures/TestApp.js"
import { authHeaders, makeAdmin, makeSuperAdmin, makeUser } from "./fixtures/users.js"

const uploadsDir = mkdtempSync(join(tmpdir(), "tb-event-images-"))
afterAll(() => rmSync(uploadsDir, { recursive: true, force: true }))

type Headers = Record<string, string>

const MiB = 1024 * 1024
const ascii = (text: string) => Buffer.from(text, "latin1")

/** Image bytes: only the first bytes make the type; the rest pads to the size a test needs. */
const png = (size = 67) =>
  Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(Math.max(0, size - 8))])
const jpeg = (size = 40) => Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(size - 4)])
const webp = (size = 40) =>
  Buffer.concat([ascii("RIFF"), Buffer.from([size - 8, 0, 0, 0]), ascii("WEBPVP8L"), randomBytes(size - 16)])
const gif = () => Buffer.concat([ascii("GIF89a"), randomBytes(30)])

interface Part {
  readonly name: string
  readonly value: Uint8Array | string
  readonly filename?: string
  readonly type?: string
}

/** A multipart/form-data body, built by hand so that its length is declared (as browsers do). */
const multipart = (parts: ReadonlyArray<Part>) => {
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

const imagePart = (bytes: Uint8Array, type = "image/png", filename = "cover.png"): Part => ({
  name: "image",
  value: bytes,
  filename,
  type
})

/**
 * Posts `body`: with its length declared, or (`chunked`) as a stream of 64 KiB chunks without a length, so that only
 * the server's reading limits can stop it.
 */
const send = (path: string, headers: Headers, body: Uint8Array, contentType: string, chunked = false) =>
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

const upload = (event: { readonly id: number }, headers: Headers, parts: ReadonlyArray<Part>) => {
  const { body, contentType } = multipart(parts)
  return send(`/api/v2/events/${event.id}/image`, headers, body, contentType)
}

const getBytes = (path: string) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const response = yield* client.execute(HttpClientRequest.get(path))
    return { status: response.status, headers: response.headers, bytes: Buffer.from(yield* response.arrayBuffer) }
  }).pipe(Effect.scoped, Effect.orDie)

const coverOf = (id: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ cover_image: string | null }>`SELECT cover_image FROM events WHERE id = ${id}`.pipe(
        Effect.map((rows) => rows[0]!.cover_image)
      )
  )

const outboxOf = (tenant: Tenant, type: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ payload: Record<string, unknown> }>`
      SELECT payload FROM outbox_events WHERE tenant_id = ${tenant.id} AND event_type = ${type} ORDER BY id`.pipe(
      Effect.map((rows) => rows.map((r) => r.payload))
    ))

const storedFor = (tenant: Tenant, event: { readonly id: number }) =>
  join(uploadsDir, "events", String(tenant.id), String(event.id))

/** A community with an organiser's event, an admin, another member. */
const community = (overrides: Record<string, unknown> = {}) =>
  Effect.gen(function*() {
    const tenant = yield* makeTenant(overrides)
    const organiser = yield* makeUser(tenant)
    const member = yield* makeUser(tenant)
    const admin = yield* makeAdmin(tenant)
    return {
      tenant,
      organiser,
      event: yield* makeEvent(organiser),
      organiserHeaders: yield* authHeaders(organiser),
      memberHeaders: yield* authHeaders(member),
      adminHeaders: yield* authHeaders(admin),
      anonymous: tenantHeaders(tenant)
    }
  })

/** Makes `template` a recurring template and the given events its occurrences. */
const makeSeries = (template: TestEvent, occurrences: ReadonlyArray<TestEvent>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.zipRight(
      sql`UPDATE events SET is_recurring_template = true WHERE id = ${template.id}`,
      sql`UPDATE events SET parent_event_id = ${template.id} WHERE id IN ${sql.in(occurrences.map((o) => o.id))}`
    )).pipe(Effect.orDie)

const expectImage422 = (res: { status: number; text: string; body: unknown }, message?: RegExp) => {
  assert.strictEqual(res.status, 422, res.text)
  assert.strictEqual(codeOf(res.body), "VALIDATION_ERROR")
  assert.deepStrictEqual(fieldsOf(res.body), ["image"])
  if (message) assert.match(errorsOf(res.body)[0]!.message, message)
}

interface OpenApiDoc {
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

describe("image checks", () => {
  plain("the content decides the type; a declared image type must agree; empty and oversize are refused", () => {
    assert.strictEqual(sniffImageType(png()), "image/png")
    assert.strictEqual(sniffImageType(jpeg()), "image/jpeg")
    assert.strictEqual(sniffImageType(webp()), "image/webp")
    assert.strictEqual(sniffImageType(gif()), undefined)
    assert.strictEqual(sniffImageType(ascii("RIFF....WAVE")), undefined)
    assert.strictEqual(sniffImageType(Buffer.from([0xff, 0xd8])), undefined)
    assert.deepStrictEqual(checkImage({ bytes: png(), declaredType: "image/png" }), { type: "image/png" })
    assert.deepStrictEqual(checkImage({ bytes: jpeg(), declaredType: "image/jpg" }), { type: "image/jpeg" })
    assert.deepStrictEqual(checkImage({ bytes: webp(), declaredType: "application/octet-stream" }), {
      type: "image/webp"
    })
    assert.deepStrictEqual(checkImage({ bytes: png(), declaredType: "" }), { type: "image/png" })
    assert.property(checkImage({ bytes: png(), declaredType: "image/gif" }), "problem")
    assert.property(checkImage({ bytes: gif(), declaredType: "image/png" }), "problem")
    assert.property(checkImage({ bytes: Buffer.alloc(0), declaredType: "image/png" }), "problem")
    assert.property(checkImage({ bytes: png(5 * MiB + 1), declaredType: "image/png" }), "problem")
    assert.deepStrictEqual(checkImage({ bytes: png(5 * MiB), declaredType: "image/png" }), { type: "image/png" })
  })

  plain("only multipart/form-data with a boundary the parser accepts goes to the parser", () => {
    for (
      const ok of [
        "multipart/form-data; boundary=abc",
        "Multipart/Form-Data;boundary=\"a b\"",
        "multipart/form-data; charset=utf-8; boundary=x"
      ]
    ) {
      assert.isTrue(hasMultipartBoundary(ok), ok)
    }
    for (
      const bad of [
        "",
        "multipart/form-data",
        "multipart/form-data;",
        "multipart/form-data; boundary=",
        "multipart/form-data; boundary=\"\"",
        "multipart/mixed; boundary=x",
        "application/json",
        "multipart/form-data; boundary=x; junk",
        "multipart/form-data; charset=utf-8"
      ]
    ) {
      assert.isFalse(hasMultipartBoundary(bad), bad)
    }
  })

  plain("only the image route raises the body cap (from its contract annotation)", () => {
    const routes = RouteTable.fromApi(Api)
    assert.deepStrictEqual(
      routes.maxBodyBytes("POST", "/api/v2/events/12/image"),
      Option.some(EVENT_IMAGE_MAX_BODY_BYTES)
    )
    assert.strictEqual(EVENT_IMAGE_MAX_BODY_BYTES, 10 * MiB)
    for (
      const [method, path] of [
        ["PUT", "/api/v2/events/12/image"],
        ["POST", "/api/v2/events/12"],
        ["POST", "/api/v2/events/12/image/x"],
        ["POST", "/api/v2/events"],
        ["POST", "/api/v2/polls"]
      ] as const
    ) {
      assert.isTrue(Option.isNone(routes.maxBodyBytes(method, path)), `${method} ${path}`)
    }
  })

  plain("only our own upload URLs name a file the store may delete", () => {
    assert.deepStrictEqual(keyOfUrl("/uploads/events/1/2/abc.png"), Option.some("events/1/2/abc.png"))
    for (
      const url of [
        "https://cdn.example.org/uploads/events/1/x.png",
        "/uploads/../secret.png",
        "/uploads/",
        "/uploads//x.png",
        "/uploadsx/a.png",
        "/uploads/.hidden.png",
        "uploads/a.png"
      ]
    ) {
      assert.isTrue(Option.isNone(keyOfUrl(url)), url)
    }
  })

  plain("a series shares its cover with the template", () => {
    assert.strictEqual(seriesRootOf({ id: "5", is_recurring_template: true, parent_event_id: null }), 5)
    assert.strictEqual(seriesRootOf({ id: "6", is_recurring_template: false, parent_event_id: "5" }), 5)
    assert.strictEqual(seriesRootOf({ id: "7", is_recurring_template: false, parent_event_id: null }), 7)
  })
})

layer(TestApp({ UPLOADS_DIR: uploadsDir }), { excludeTestServices: true, timeout: "180 seconds" })(
  "event image",
  (it) => {
    describe("upload", () => {
      it.effect("the organiser uploads a PNG: 200 {id, cover_image}; stored, served, set on the event; outbox", () =>
        Effect.gen(function*() {
          const { event, organiser, organiserHeaders, tenant } = yield* community()
          const bytes = png(2048)
          const res = yield* upload(event, organiserHeaders, [imagePart(bytes)])
          assert.strictEqual(res.status, 200, res.text)
          const url = (res.body as { data: { cover_image: string } }).data.cover_image
          assert.deepStrictEqual(res.body, { data: { id: event.id, cover_image: url }, meta: {} })
          assert.match(url, new RegExp(`^/uploads/events/${tenant.id}/${event.id}/[0-9a-f]{32}\\.png$`))
          assert.strictEqual(yield* coverOf(event.id), url)
          assert.deepStrictEqual(readFileSync(join(uploadsDir, url.slice("/uploads/".length))), bytes)

          const served = yield* getBytes(url)
          assert.strictEqual(served.status, 200)
          assert.deepStrictEqual(served.bytes, bytes)
          assert.strictEqual(served.headers["content-type"], "image/png")
          assert.strictEqual(served.headers["cache-control"], UPLOAD_CACHE_CONTROL)

          assert.deepStrictEqual(yield* outboxOf(tenant, "CommunityEventUpdated"), [{
            event_id: event.id,
            user_id: organiser.id,
            title: event.title,
            changed: [],
            fields: ["cover_image"],
            cover_image: url,
            event_ids: [event.id],
            updated_by: organiser.id
          }])
        }))

      it.effect("JPEG and WebP are stored as such; the declared type may be generic; a new upload replaces the cover", () =>
        Effect.gen(function*() {
          const { event, organiserHeaders } = yield* community()
          const first = yield* upload(event, organiserHeaders, [imagePart(jpeg(), "image/jpeg", "me.jpg")])
          assert.strictEqual(first.status, 200, first.text)
          const jpegUrl = (first.body as { data: { cover_image: string } }).data.cover_image
          assert.match(jpegUrl, /\.jpg$/)
          assert.strictEqual((yield* getBytes(jpegUrl)).headers["content-type"], "image/jpeg")

          const second = yield* upload(event, organiserHeaders, [
            imagePart(webp(), "application/octet-stream", "x.bin")
          ])
          assert.strictEqual(second.status, 200, second.text)
          const webpUrl = (second.body as { data: { cover_image: string } }).data.cover_image
          assert.match(webpUrl, /\.webp$/)
          assert.strictEqual((yield* getBytes(webpUrl)).headers["content-type"], "image/webp")
          assert.strictEqual(yield* coverOf(event.id), webpUrl)
          // Other form fields beside the image are ignored.
          const withField = yield* upload(event, organiserHeaders, [{ name: "caption", value: "hi" }, imagePart(png())])
          assert.strictEqual(withField.status, 200, withField.text)
        }))

      it.effect("a community admin may upload for a member's event; a super-admin too; others → 403, nothing stored", () =>
        Effect.gen(function*() {
          const { adminHeaders, anonymous, event, memberHeaders, tenant } = yield* community()
          const denied = yield* upload(event, memberHeaders, [imagePart(png())])
          assert.strictEqual(denied.status, 403, denied.text)
          assert.strictEqual(codeOf(denied.body), "FORBIDDEN")
          const anon = yield* upload(event, anonymous, [imagePart(png())])
          assert.strictEqual(anon.status, 401, anon.text)
          assert.strictEqual(codeOf(anon.body), "AUTH_REQUIRED")
          assert.strictEqual(yield* coverOf(event.id), null)
          assert.isFalse(existsSync(storedFor(tenant, event)))
          // A refused caller's body is not even looked at: a GIF from them is still a 403.
          const deniedGif = yield* upload(event, memberHeaders, [imagePart(gif(), "image/gif", "a.gif")])
          assert.strictEqual(deniedGif.status, 403)

          const byAdmin = yield* upload(event, adminHeaders, [imagePart(png())])
          assert.strictEqual(byAdmin.status, 200, byAdmin.text)
          const superHeaders = yield* authHeaders(yield* makeSuperAdmin(), tenant)
          const bySuper = yield* upload(event, superHeaders, [imagePart(png())])
          assert.strictEqual(bySuper.status, 200, bySuper.text)
          assert.strictEqual(
            yield* coverOf(event.id),
            (bySuper.body as { data: { cover_image: string } }).data.cover_image
          )
        }))

      it.effect("another tenant's event, unknown and bad ids → 404; events off → 403 FEATURE_DISABLED", () =>
        Effect.gen(function*() {
          const { event } = yield* community()
          const elsewhere = yield* community()
          for (
            const [target, headers] of [
              [event, elsewhere.adminHeaders],
              [event, elsewhere.organiserHeaders],
              [{ id: 999999999 }, elsewhere.organiserHeaders]
            ] as const
          ) {
            const res = yield* upload(target, headers, [imagePart(png())])
            assert.strictEqual(res.status, 404, res.text)
            assert.strictEqual(codeOf(res.body), "NOT_FOUND")
          }
          for (const id of ["abc", "0", "-1"]) {
            const { body, contentType } = multipart([imagePart(png())])
            const res = yield* send(`/api/v2/events/${id}/image`, elsewhere.organiserHeaders, body, contentType)
            assert.strictEqual(res.status, 404, `${id}: ${res.text}`)
          }
          assert.strictEqual(yield* coverOf(event.id), null)

          const off = yield* community({ features: { events: false } })
          const disabled = yield* upload(off.event, off.organiserHeaders, [imagePart(png())])
          assert.strictEqual(disabled.status, 403, disabled.text)
          assert.strictEqual(codeOf(disabled.body), "FEATURE_DISABLED")
          assert.strictEqual(yield* coverOf(off.event.id), null)
        }))

      it.effect("a series: uploading to an occurrence sets the template and every occurrence in one go", () =>
        Effect.gen(function*() {
          const { event: unrelated, organiser, organiserHeaders, tenant } = yield* community()
          const template = yield* makeEvent(organiser, { startsInHours: 24 })
          const occurrences = yield* Effect.all([48, 72, 96].map((h) => makeEvent(organiser, { startsInHours: h })))
          yield* makeSeries(template, occurrences)

          const res = yield* upload(occurrences[1]!, organiserHeaders, [imagePart(png())])
          assert.strictEqual(res.status, 200, res.text)
          const url = (res.body as { data: { id: number; cover_image: string } }).data.cover_image
          assert.strictEqual((res.body as { data: { id: number } }).data.id, occurrences[1]!.id)
          for (const e of [template, ...occurrences]) assert.strictEqual(yield* coverOf(e.id), url, `event ${e.id}`)
          assert.strictEqual(yield* coverOf(unrelated.id), null)
          const [outbox] = yield* outboxOf(tenant, "CommunityEventUpdated")
          assert.deepStrictEqual(
            outbox!["event_ids"],
            [template.id, ...occurrences.map((o) => o.id)].sort((a, b) => a - b)
          )
          assert.strictEqual(outbox!["event_id"], occurrences[1]!.id)

          // From the template, the same.
          const again = yield* upload(template, organiserHeaders, [imagePart(jpeg(), "image/jpeg")])
          const url2 = (again.body as { data: { cover_image: string } }).data.cover_image
          for (const e of [template, ...occurrences]) assert.strictEqual(yield* coverOf(e.id), url2)
        }))
    })

    describe("replacing a cover deletes the file it replaced", () => {
      const urlOf = (res: { body: unknown }) => (res.body as { data: { cover_image: string } }).data.cover_image
      const fileOf = (url: string) => join(uploadsDir, url.slice("/uploads/".length))
      const expectGone = (url: string) =>
        Effect.gen(function*() {
          assert.isFalse(existsSync(fileOf(url)), `${url} is still on disk`)
          const served = yield* getBytes(url)
          assert.strictEqual(served.status, 404, url)
          assert.strictEqual(codeOf(JSON.parse(served.bytes.toString("utf8"))), "NOT_FOUND")
        })
      const expectServed = (url: string, bytes: Uint8Array) =>
        Effect.gen(function*() {
          const served = yield* getBytes(url)
          assert.strictEqual(served.status, 200, url)
          assert.deepStrictEqual(served.bytes, Buffer.from(bytes))
        })

      it.effect("upload twice: the first file is gone from disk and its /uploads URL is 404; the second is served", () =>
        Effect.gen(function*() {
          const { event, organiserHeaders, tenant } = yield* community()
          const firstBytes = png(300)
          const first = yield* upload(event, organiserHeaders, [imagePart(firstBytes)])
          assert.strictEqual(first.status, 200, first.text)
          yield* expectServed(urlOf(first), firstBytes)

          const secondBytes = jpeg(500)
          const second = yield* upload(event, organiserHeaders, [imagePart(secondBytes, "image/jpeg")])
          assert.strictEqual(second.status, 200, second.text)
          assert.strictEqual(yield* coverOf(event.id), urlOf(second))
          yield* expectGone(urlOf(first))
          yield* expectServed(urlOf(second), secondBytes)
          assert.deepStrictEqual(readdirSync(storedFor(tenant, event)), [urlOf(second).split("/").at(-1)!])
        }))

      it.effect("a series: the old cover goes once no event shows it; a detached occurrence keeps it until replaced", () =>
        Effect.gen(function*() {
          const { organiser, organiserHeaders } = yield* community()
          const template = yield* makeEvent(organiser, { startsInHours: 24 })
          const occurrences = yield* Effect.all([48, 72, 96].map((h) => makeEvent(organiser, { startsInHours: h })))
          yield* makeSeries(template, occurrences)
          const oldBytes = png(400)
          const old = yield* upload(template, organiserHeaders, [imagePart(oldBytes)])
          assert.strictEqual(old.status, 200, old.text)
          // Detaching (scope `single`) keeps the row's cover: it is that event's cover now, too.
          const detached = occurrences[2]!
          yield* Effect.flatMap(
            SqlClient.SqlClient,
            (sql) => sql`UPDATE events SET parent_event_id = NULL WHERE id = ${detached.id}`
          )

          const replaced = yield* upload(occurrences[0]!, organiserHeaders, [imagePart(png(500))])
          assert.strictEqual(replaced.status, 200, replaced.text)
          for (const e of [template, occurrences[0]!, occurrences[1]!]) {
            assert.strictEqual(yield* coverOf(e.id), urlOf(replaced))
          }
          assert.strictEqual(yield* coverOf(detached.id), urlOf(old))
          yield* expectServed(urlOf(old), oldBytes)

          // Replacing the series' cover again deletes the one it had, not the detached event's.
          const again = yield* upload(template, organiserHeaders, [imagePart(png(600))])
          yield* expectGone(urlOf(replaced))
          yield* expectServed(urlOf(old), oldBytes)
          // Now the detached event replaces its own: nothing shows the old cover any more.
          const own = yield* upload(detached, organiserHeaders, [imagePart(png(700))])
          assert.strictEqual(own.status, 200, own.text)
          yield* expectGone(urlOf(old))
          assert.strictEqual(yield* coverOf(template.id), urlOf(again))
        }))

      it.effect("a file that cannot be deleted is logged and the upload still succeeds; foreign cover URLs are left alone", () =>
        Effect.gen(function*() {
          const { event, organiserHeaders } = yield* community()
          const first = yield* upload(event, organiserHeaders, [imagePart(png())])
          assert.strictEqual(first.status, 200, first.text)
          // A non-empty folder where the old file was: removing it fails.
          const stuck = fileOf(urlOf(first))
          rmSync(stuck)
          mkdirSync(stuck)
          writeFileSync(join(stuck, "keep"), "x")
          const newBytes = png(800)
          const second = yield* upload(event, organiserHeaders, [imagePart(newBytes)])
          assert.strictEqual(second.status, 200, second.text)
          assert.isTrue(existsSync(join(stuck, "keep")))
          yield* expectServed(urlOf(second), newBytes)

          // A cover that is not one of our uploads (or not a valid key) is never touched.
          for (const foreign of ["https://cdn.example.org/x.png", "/uploads/../x.png"]) {
            yield* Effect.flatMap(
              SqlClient.SqlClient,
              (sql) => sql`UPDATE events SET cover_image = ${foreign} WHERE id = ${event.id}`
            )
            const next = yield* upload(event, organiserHeaders, [imagePart(png())])
            assert.strictEqual(next.status, 200, next.text)
          }
          yield* expectServed(urlOf(second), newBytes)
        }))
    })

    describe("bad uploads → 422 on field image, nothing changed", () => {
      it.effect("GIF, disguised GIF, mislabelled PNG, text, empty, missing field, text field, two files", () =>
        Effect.gen(function*() {
          const { event, organiserHeaders, tenant } = yield* community()
          const cases: Array<[string, ReadonlyArray<Part>, RegExp]> = [
            ["gif", [imagePart(gif(), "image/gif", "a.gif")], /JPEG, PNG or WebP/],
            ["gif as png", [imagePart(gif(), "image/png", "a.png")], /JPEG, PNG or WebP/],
            ["png as gif", [imagePart(png(), "image/gif", "a.gif")], /declared as image\/gif/],
            ["text", [imagePart(ascii("hello, I am text"), "text/plain", "a.txt")], /JPEG, PNG or WebP/],
            ["empty", [imagePart(Buffer.alloc(0))], /empty/],
            ["other field", [{ ...imagePart(png()), name: "photo" }], /missing/],
            ["text field", [{ name: "image", value: "not a file" }], /file/],
            ["two files", [imagePart(png()), imagePart(png())], /one file/]
          ]
          for (const [label, parts, message] of cases) {
            const res = yield* upload(event, organiserHeaders, parts)
            assert.strictEqual(res.status, 422, `${label}: ${res.text}`)
            expectImage422(res, message)
          }
          // File names are only names: "..", "." or a path never reach a file system.
          for (const filename of ["..", ".", "../../x.png", "/etc/passwd", "a\\b.png"]) {
            const res = yield* upload(event, organiserHeaders, [imagePart(gif(), "image/gif", filename)])
            expectImage422(res, /JPEG, PNG or WebP/)
          }
          assert.strictEqual(yield* coverOf(event.id), null)
          assert.isFalse(existsSync(storedFor(tenant, event)))
          assert.deepStrictEqual(yield* outboxOf(tenant, "CommunityEventUpdated"), [])
        }))

      it.effect("not multipart at all: JSON, no body, a raw image, a broken multipart body, no boundary", () =>
        Effect.gen(function*() {
          const { event, organiserHeaders } = yield* community()
          const path = `/api/v2/events/${event.id}/image`
          expectImage422(yield* send(path, organiserHeaders, ascii("{}"), "application/json"))
          expectImage422(yield* send(path, organiserHeaders, ascii(""), "application/json"))
          expectImage422(yield* send(path, organiserHeaders, png(), "image/png"))
          expectImage422(yield* send(path, organiserHeaders, ascii("garbage"), "multipart/form-data; boundary=xyz"))
          // Multipart without a boundary is refused at the edge, for every route alike.
          const noBoundary = yield* send(path, organiserHeaders, png(), "multipart/form-data")
          assert.strictEqual(noBoundary.status, 400, noBoundary.text)
          assert.strictEqual(codeOf(noBoundary.body), "INVALID_REQUEST")
          assert.strictEqual(yield* coverOf(event.id), null)
        }))

      it.effect("over 5 MB → 422 (6 MB); a 2 MB image passes the route's raised body cap; over the cap or 2 MB JSON elsewhere is 413", () =>
        Effect.gen(function*() {
          const { event, organiserHeaders, tenant } = yield* community()
          const big = yield* upload(event, organiserHeaders, [imagePart(png(6 * 1000 * 1000))])
          expectImage422(big, /5 MB/)
          const justOver = yield* upload(event, organiserHeaders, [imagePart(png(5 * MiB + 1))])
          expectImage422(justOver, /5 MB/)
          assert.strictEqual(yield* coverOf(event.id), null)
          assert.isFalse(existsSync(storedFor(tenant, event)))

          const twoMb = png(2 * MiB)
          const ok = yield* upload(event, organiserHeaders, [imagePart(twoMb)])
          assert.strictEqual(ok.status, 200, ok.text)
          const url = (ok.body as { data: { cover_image: string } }).data.cover_image
          assert.deepStrictEqual((yield* getBytes(url)).bytes, twoMb)

          // Every other route keeps the 1 MiB default, siblings of the image route included.
          const json = ascii(JSON.stringify({ title: "x".repeat(2 * MiB), description: "d" }))
          for (const path of ["/api/v2/events", `/api/v2/events/${event.id}/rsvp`, "/api/v2/polls"]) {
            const res = yield* send(path, organiserHeaders, json, "application/json")
            assert.strictEqual(res.status, 413, `${path}: ${res.text}`)
            assert.strictEqual(codeOf(res.body), "PAYLOAD_TOO_LARGE")
          }
          // Without a declared length: one file over 5 MB within the route's cap is the image's 422; files over the
          // route's 10 MiB are 413 once the cap is passed (the rest is read and dropped, so the answer arrives).
          const oneTooLarge = multipart([imagePart(png(7 * MiB))])
          const streamedLarge = yield* send(
            `/api/v2/events/${event.id}/image`,
            organiserHeaders,
            oneTooLarge.body,
            oneTooLarge.contentType,
            true
          )
          expectImage422(streamedLarge, /5 MB/)
          const tooManyBytes = multipart([imagePart(png(4 * MiB)), imagePart(png(4 * MiB)), imagePart(png(4 * MiB))])
          const streamedHuge = yield* send(
            `/api/v2/events/${event.id}/image`,
            organiserHeaders,
            tooManyBytes.body,
            tooManyBytes.contentType,
            true
          )
          assert.strictEqual(streamedHuge.status, 413, streamedHuge.text)
          assert.strictEqual(codeOf(streamedHuge.body), "PAYLOAD_TOO_LARGE")
          // And the image route's own cap (10 MiB) still holds: a larger body is refused unread.
          const huge = yield* upload(event, organiserHeaders, [imagePart(png(11 * MiB))])
          assert.strictEqual(huge.status, 413, huge.text)
          assert.strictEqual(codeOf(huge.body), "PAYLOAD_TOO_LARGE")
          assert.strictEqual(yield* coverOf(event.id), url)
        }))
    })

    describe("contract", () => {
      it.effect("the OpenAPI document shows the upload as multipart with a binary `image`", () =>
        Effect.gen(function*() {
          const res = yield* getBytes("/api/v2/openapi.json")
          const doc = JSON.parse(res.bytes.toString("utf8")) as OpenApiDoc
          const body = doc.paths["/api/v2/events/{id}/image"]!["post"]!.requestBody!.content["multipart/form-data"]!
          assert.deepStrictEqual(body.schema.required, ["image"])
          assert.strictEqual(body.schema.properties["image"]!.items.$ref, "#/components/schemas/PersistedFile")
          assert.strictEqual(body.schema.properties["image"]!.maxItems, 1)
          assert.deepStrictEqual(doc.components.schemas["PersistedFile"], { type: "string", format: "binary" })
        }))
    })

    describe("rate limit", () => {
      it.effect("20 uploads per minute per IP; the 21st → 429 RATE_LIMITED with Retry-After", () =>
        Effect.gen(function*() {
          const { event, organiserHeaders } = yield* community()
          const ip = fromIp(randomIp())
          const { body, contentType } = multipart([imagePart(gif(), "image/gif")])
          const path = `/api/v2/events/${event.id}/image`
          for (let i = 0; i < 20; i++) {
            const res = yield* send(path, { ...organiserHeaders, ...ip }, body, contentType)
            assert.strictEqual(res.status, 422, `request ${i + 1}: ${res.text}`)
            assert.strictEqual(res.headers["x-ratelimit-limit"], "20")
            assert.strictEqual(res.headers["x-ratelimit-remaining"], String(19 - i))
          }
          const limited = yield* send(path, { ...organiserHeaders, ...ip }, body, contentType)
          assert.strictEqual(limited.status, 429, limited.text)
          assert.strictEqual(codeOf(limited.body), "RATE_LIMITED")
          assert.isString(limited.headers["retry-after"])
          // Another address is not affected.
          const other = yield* upload(event, organiserHeaders, [imagePart(png())])
          assert.strictEqual(other.status, 200, other.text)
        }))
    })
  }
)
