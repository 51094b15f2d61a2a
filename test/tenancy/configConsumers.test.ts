import { SqlClient } from "@effect/sql"
import { afterAll, assert, layer } from "@effect/vitest"
import { FeedPostId, RecordId } from "@timebank/domain"
import { RankingHealth } from "@timebank/server"
import { Effect } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { coverOf, expectImage422, imagePart, jpeg, MiB, multipart, png, send, upload } from "../events/imageUploads.js"
import { codeOf } from "../fixtures/bodies.js"
import { expectOk, pageCursor } from "../fixtures/client.js"
import { type Actor, community } from "../fixtures/community.js"
import { makeEvent } from "../fixtures/events.js"
import { comment, feedIds, post } from "../fixtures/feed.js"
import { rawRequest, TestApp } from "../fixtures/TestApp.js"

const uploadsDir = mkdtempSync(join(tmpdir(), "tb-config-consumers-"))
afterAll(() => rmSync(uploadsDir, { recursive: true, force: true }))

/** Sets a configuration area through the admin route (partial PUT, decisions D17). */
const configure = (admin: Actor, area: "images" | "feed-algorithm", body: Record<string, unknown>) =>
  Effect.tap(
    rawRequest("PUT", `/api/v2/admin/config/${area}`, { headers: admin.headers, body: JSON.stringify(body) }),
    (res) => assert.strictEqual(res.status, 200, res.text)
  )

const expectTooLarge = (res: { status: number; text: string; body: unknown }) => {
  assert.strictEqual(res.status, 413, res.text)
  assert.strictEqual(codeOf(res.body), "PAYLOAD_TOO_LARGE")
}

const like = (who: Actor, id: number) => who.client.feed.like({ path: { id: FeedPostId.make(id) } }).pipe(expectOk)

const connect = (a: Actor, b: Actor) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql`INSERT INTO connections (tenant_id, requester_id, target_id, status, accepted_at)
        VALUES (${a.tenant.id}, ${a.id}, ${b.id}, 'accepted', now())`
  ).pipe(Effect.orDie)

/** Only the posts a test wrote, in the order the viewer's feed shows them (activity records aside). */
const orderOf = (viewer: Actor, ids: ReadonlyArray<number>) =>
  Effect.map(feedIds(viewer), (shown) => shown.filter((id) => ids.includes(id)))

layer(TestApp({ UPLOADS_DIR: uploadsDir }), { excludeTestServices: true, timeout: "180 seconds" })(
  "configuration read by the features it configures",
  (it) => {
    it.effect("images: a lower max_upload_mb makes a larger body 413 and a larger image 422; a higher one lets it in", () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token" })
        const b = yield* community({ signIn: "token" })
        const event = yield* makeEvent(c.member)
        const theirs = yield* makeEvent(b.member)
        const threeMb = png(3 * MiB)
        const ok = yield* upload(event, c.member.headers, [imagePart(threeMb)])
        assert.strictEqual(ok.status, 200, ok.text)

        yield* configure(c.admin, "images", { max_upload_mb: 1 })
        // Over twice the limit: the body is refused (with its length declared, or streamed without one).
        expectTooLarge(yield* upload(event, c.member.headers, [imagePart(png(3 * MiB))]))
        const streamed = multipart([imagePart(png(3 * MiB))])
        expectTooLarge(
          yield* send(`/api/v2/events/${event.id}/image`, c.member.headers, streamed.body, streamed.contentType, true)
        )
        // Over the limit but within the body cap: the image's own 422 (decisions D8).
        expectImage422(yield* upload(event, c.member.headers, [imagePart(png(1.5 * MiB))]), /at most 1 MB/)
        const cover = yield* coverOf(event.id)
        const small = yield* upload(event, c.member.headers, [imagePart(png(MiB))])
        assert.strictEqual(small.status, 200, small.text)
        assert.notStrictEqual(yield* coverOf(event.id), cover)
        // Another community keeps the default limit.
        const other = yield* upload(theirs, b.member.headers, [imagePart(png(3 * MiB))])
        assert.strictEqual(other.status, 200, other.text)

        yield* configure(c.admin, "images", { max_upload_mb: 8 })
        const sevenMb = yield* upload(event, c.member.headers, [imagePart(png(7 * MiB))])
        assert.strictEqual(sevenMb.status, 200, sevenMb.text)
        expectImage422(yield* upload(theirs, b.member.headers, [imagePart(png(7 * MiB))]), /at most 5 MB/)
      }))

    it.effect("images: a type the community does not allow is 422 on field image; the allowed ones pass", () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token" })
        const event = yield* makeEvent(c.member)
        const before = yield* upload(event, c.member.headers, [imagePart(jpeg(400), "image/jpeg", "cover.jpg")])
        assert.strictEqual(before.status, 200, before.text)

        yield* configure(c.admin, "images", { allowed_types: ["image/png"] })
        const cover = yield* coverOf(event.id)
        const refused = yield* upload(event, c.member.headers, [imagePart(jpeg(400), "image/jpeg", "cover.jpg")])
        expectImage422(refused, /must be a PNG image/)
        assert.strictEqual(yield* coverOf(event.id), cover)
        const accepted = yield* upload(event, c.member.headers, [imagePart(png(400))])
        assert.strictEqual(accepted.status, 200, accepted.text)
      }))

    it.effect("feed: the default order is newest first; an engagement weight ranks the liked post first", () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token" })
        const b = yield* community({ signIn: "token" })
        const [oldest, middle, newest] = yield* Effect.forEach(["one", "two", "three"], (body) => post(c.member, body))
        const ids = [oldest!.id, middle!.id, newest!.id] as Array<number>
        yield* like(c.other, oldest!.id)
        yield* comment(c.admin, oldest!.id)
        assert.deepStrictEqual(yield* orderOf(c.member, ids), [newest!.id, middle!.id, oldest!.id])

        yield* configure(c.admin, "feed-algorithm", { engagement_weight: 10 })
        assert.deepStrictEqual(yield* orderOf(c.member, ids), [oldest!.id, newest!.id, middle!.id])
        const health = yield* RankingHealth
        assert.isAbove((yield* health.of(c.tenant.id, "feed"))?.runs ?? 0, 0)

        // Another community with the same likes keeps the default order.
        const theirs = yield* Effect.forEach(["one", "two"], (body) => post(b.member, body))
        yield* like(b.other, theirs[0]!.id)
        const theirIds = theirs.map((p) => p.id as number)
        assert.deepStrictEqual(yield* orderOf(b.member, theirIds), [...theirIds].reverse())

        yield* configure(c.admin, "feed-algorithm", { engagement_weight: 0 })
        assert.deepStrictEqual(yield* orderOf(c.member, ids), [newest!.id, middle!.id, oldest!.id])
      }))

    it.effect("feed: a connection weight puts the viewer's connections first; cursor pages neither repeat nor skip", () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token" })
        const fromOther = yield* post(c.other, "from a connection")
        const fromAdmin = yield* Effect.forEach(["a", "b", "c"], (body) => post(c.admin, body))
        yield* connect(c.member, c.other)
        const ids = [fromOther.id, ...fromAdmin.map((p) => p.id)] as Array<number>
        yield* configure(c.admin, "feed-algorithm", { connection_weight: 10 })
        const adminNewestFirst = fromAdmin.map((p) => p.id as number).reverse()
        assert.deepStrictEqual(yield* orderOf(c.member, ids), [fromOther.id, ...adminNewestFirst])
        // The admin is connected to nobody: their order stays newest first.
        assert.deepStrictEqual(yield* orderOf(c.admin, ids), [...adminNewestFirst, fromOther.id])

        // Pages of two: each page is the next two posts by id, ranked within itself.
        const seen: Array<number> = []
        let cursor: string | undefined
        for (let n = 0; n < 10; n++) {
          const urlParams = { per_page: 2, ...(cursor === undefined ? {} : { cursor: pageCursor(RecordId, cursor) }) }
          const page = yield* c.member.client.feed.list({ urlParams }).pipe(expectOk)
          seen.push(...page.data.map((p) => p.id as number))
          if (!page.meta.has_more) break
          cursor = page.meta.cursor
        }
        assert.strictEqual(new Set(seen).size, seen.length)
        const ours = seen.filter((id) => ids.includes(id))
        // The first page holds the two newest posts; the connection's, older, leads the second.
        assert.deepStrictEqual(ours, [...adminNewestFirst.slice(0, 2), fromOther.id, adminNewestFirst[2]!])
      }))
  }
)
