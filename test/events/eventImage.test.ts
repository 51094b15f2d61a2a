import { afterAll, assert, describe, it as plain, layer } from "@effect/vitest"
import { Api, EVENT_IMAGE_MAX_BODY_BYTES } from "@timebank/domain"
import {
  checkImage,
  hasMultipartBoundary,
  keyOfUrl,
  RouteTable,
  seriesRootOf,
  sniffImageType,
  UPLOAD_CACHE_CONTROL
} from "@timebank/server"
import { Effect, Option } from "effect"
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { codeOf } from "../fixtures/bodies.js"
import { makeEvent, outboxOf } from "../fixtures/events.js"
import { fromIp, randomIp } from "../fixtures/servers.js"
import { TestApp } from "../fixtures/TestApp.js"
import { authHeaders, makeSuperAdmin } from "../fixtures/users.js"
import {
  ascii,
  coverOf,
  getBytes,
  gif,
  imagePart,
  jpeg,
  makeSeries,
  MiB,
  multipart,
  type OpenApiDoc,
  png,
  send,
  storedFor,
  upload,
  webp,
  withEvent
} from "./imageUploads.js"

const uploadsDir = mkdtempSync(join(tmpdir(), "tb-event-images-"))
afterAll(() => rmSync(uploadsDir, { recursive: true, force: true }))

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
    // Twice the largest image a community may allow; each community's own cap is applied by the route.
    assert.strictEqual(EVENT_IMAGE_MAX_BODY_BYTES, 40 * MiB)
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
    assert.strictEqual(seriesRootOf({ id: 5, is_recurring_template: true, parent_event_id: null }), 5)
    assert.strictEqual(seriesRootOf({ id: 6, is_recurring_template: false, parent_event_id: 5 }), 5)
    assert.strictEqual(seriesRootOf({ id: 7, is_recurring_template: false, parent_event_id: null }), 7)
  })
})

layer(TestApp({ UPLOADS_DIR: uploadsDir }), { excludeTestServices: true, timeout: "180 seconds" })(
  "event image",
  (it) => {
    describe("upload", () => {
      it.effect("the organiser uploads a PNG: 200 {id, cover_image}; stored, served, set on the event; outbox", () =>
        Effect.gen(function*() {
          const { event, organiser, organiserHeaders, tenant } = yield* withEvent()
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
          const { event, organiserHeaders } = yield* withEvent()
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
          const { adminHeaders, anonymous, event, memberHeaders, tenant } = yield* withEvent()
          const denied = yield* upload(event, memberHeaders, [imagePart(png())])
          assert.strictEqual(denied.status, 403, denied.text)
          assert.strictEqual(codeOf(denied.body), "FORBIDDEN")
          const anon = yield* upload(event, anonymous, [imagePart(png())])
          assert.strictEqual(anon.status, 401, anon.text)
          assert.strictEqual(codeOf(anon.body), "AUTH_REQUIRED")
          assert.strictEqual(yield* coverOf(event.id), null)
          assert.isFalse(existsSync(storedFor(uploadsDir, tenant, event)))
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
          const { event } = yield* withEvent()
          const elsewhere = yield* withEvent()
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

          const off = yield* withEvent({ features: { events: false } })
          const disabled = yield* upload(off.event, off.organiserHeaders, [imagePart(png())])
          assert.strictEqual(disabled.status, 403, disabled.text)
          assert.strictEqual(codeOf(disabled.body), "FEATURE_DISABLED")
          assert.strictEqual(yield* coverOf(off.event.id), null)
        }))

      it.effect("a series: uploading to an occurrence sets the template and every occurrence in one go", () =>
        Effect.gen(function*() {
          const { event: unrelated, organiser, organiserHeaders, tenant } = yield* withEvent()
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
          const { event, organiserHeaders } = yield* withEvent()
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
