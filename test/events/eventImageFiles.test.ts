import { SqlClient } from "@effect/sql"
import { afterAll, assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { codeOf } from "../fixtures/bodies.js"
import { makeEvent, outboxOf } from "../fixtures/events.js"
import { TestApp } from "../fixtures/TestApp.js"
import {
  ascii,
  coverOf,
  expectImage422,
  getBytes,
  gif,
  imagePart,
  jpeg,
  makeSeries,
  MiB,
  multipart,
  type Part,
  png,
  send,
  storedFor,
  upload,
  withEvent
} from "./imageUploads.js"

const uploadsDir = mkdtempSync(join(tmpdir(), "tb-event-images-"))
afterAll(() => rmSync(uploadsDir, { recursive: true, force: true }))

layer(TestApp({ UPLOADS_DIR: uploadsDir }), { excludeTestServices: true, timeout: "180 seconds" })(
  "event image files and refusals",
  (it) => {
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
          const { event, organiserHeaders, tenant } = yield* withEvent()
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
          assert.deepStrictEqual(readdirSync(storedFor(uploadsDir, tenant, event)), [urlOf(second).split("/").at(-1)!])
        }))

      it.effect("a series: the old cover goes once no event shows it; a detached occurrence keeps it until replaced", () =>
        Effect.gen(function*() {
          const { organiser, organiserHeaders } = yield* withEvent()
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
          const { event, organiserHeaders } = yield* withEvent()
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
          const { event, organiserHeaders, tenant } = yield* withEvent()
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
          assert.isFalse(existsSync(storedFor(uploadsDir, tenant, event)))
          assert.deepStrictEqual(yield* outboxOf(tenant, "CommunityEventUpdated"), [])
        }))

      it.effect("not multipart at all: JSON, no body, a raw image, a broken multipart body, no boundary", () =>
        Effect.gen(function*() {
          const { event, organiserHeaders } = yield* withEvent()
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
          const { event, organiserHeaders, tenant } = yield* withEvent()
          const big = yield* upload(event, organiserHeaders, [imagePart(png(6 * 1000 * 1000))])
          expectImage422(big, /5 MB/)
          const justOver = yield* upload(event, organiserHeaders, [imagePart(png(5 * MiB + 1))])
          expectImage422(justOver, /5 MB/)
          assert.strictEqual(yield* coverOf(event.id), null)
          assert.isFalse(existsSync(storedFor(uploadsDir, tenant, event)))

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
  }
)
