import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { type BatchGeocodePayload, type Group, GroupId } from "@timebank/domain"
import { distanceKm } from "@timebank/server"
import { Effect, Layer } from "effect"
import { codeOf, dataOf, fieldsOf } from "../fixtures/bodies.js"
import { apiClient, expectError, expectOk } from "../fixtures/client.js"
import { type Actor, actor, community, makeActor } from "../fixtures/community.js"
import { type FakeGeocoder, fakeGeocoder } from "../fixtures/geocoder.js"
import { makeGroup, readGroup } from "../fixtures/groups.js"
import { rawRequest, TestApp } from "../fixtures/TestApp.js"
import { makeSuperAdmin } from "../fixtures/users.js"

const BATCH = "/api/v2/admin/groups/batch-geocode"

const geocode = (admin: Actor, group: { readonly id: number }) =>
  Effect.map(
    admin.client.adminGroupGeocoding.geocode({ path: { id: GroupId.make(group.id) } }).pipe(expectOk),
    (res) => res.data
  )

const batch = (admin: Actor, payload: BatchGeocodePayload) =>
  Effect.map(admin.client.adminGroupGeocoding.batch({ payload }).pipe(expectOk), (res) => res.data)

const near = (point: { latitude: number | null; longitude: number | null }, latitude: number, longitude: number) => {
  assert.isNotNull(point.latitude)
  assert.isNotNull(point.longitude)
  assert.isBelow(distanceKm({ latitude: point.latitude!, longitude: point.longitude! }, { latitude, longitude }), 10)
}

const noCoordinates = (group: Pick<Group, "latitude" | "longitude">) =>
  assert.deepStrictEqual([group.latitude, group.longitude], [null, null])

/** Coordinates written straight to the database (a group geocoded earlier, without asking a geocoder). */
const setCoordinates = (group: { readonly id: number }, latitude: number, longitude: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql`UPDATE groups SET latitude = ${latitude}, longitude = ${longitude}, geocode_status = 'ok',
          geocoded_at = now() WHERE id = ${group.id}`
  ).pipe(Effect.orDie, Effect.asVoid)

layer(TestApp(), { excludeTestServices: true, timeout: "120 seconds" })("group geocoding, offline gazetteer", (it) => {
  it.effect("geocoding sets the coordinates, which members see on GET /groups/{id} and in the list", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      const group = yield* makeGroup(c.member, { location: "Bristol, UK" })
      noCoordinates(group)
      noCoordinates(yield* readGroup(c.other, group))

      const geocoded = yield* geocode(c.admin, group)
      assert.strictEqual(geocoded.id, group.id)
      assert.strictEqual(geocoded.geocode_status, "ok")
      assert.strictEqual(geocoded.geocoded_as, "Bristol, GB")
      assert.isNotNull(geocoded.geocoded_at)
      near(geocoded, 51.4545, -2.5879)

      const seen = yield* readGroup(c.other, group)
      assert.deepStrictEqual([seen.latitude, seen.longitude], [geocoded.latitude, geocoded.longitude])
      const listed = yield* c.other.client.groups.list({ urlParams: {} }).pipe(expectOk)
      const inList = listed.data.find((g) => g.id === group.id)!
      assert.deepStrictEqual([inList.latitude, inList.longitude], [geocoded.latitude, geocoded.longitude])

      // A platform super-admin naming the community may geocode too.
      const superAdmin = yield* actor(yield* makeSuperAdmin(), "token")
      const asSuper = yield* apiClient({ ...superAdmin.headers, "x-tenant-id": String(c.tenant.id) })
      const again = yield* asSuper.adminGroupGeocoding.geocode({ path: { id: group.id } }).pipe(expectOk)
      assert.deepStrictEqual([again.data.latitude, again.data.longitude], [geocoded.latitude, geocoded.longitude])
    }))

  it.effect("an unknown place → 200 not_found without coordinates; no location → 422 on location", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      const nowhere = yield* makeGroup(c.member, { location: "Xyzzyville Lower Marsh" })
      yield* setCoordinates(nowhere, 10, 10)
      const answer = yield* geocode(c.admin, nowhere)
      assert.strictEqual(answer.geocode_status, "not_found")
      assert.isNull(answer.geocoded_as)
      noCoordinates(answer)
      noCoordinates(yield* readGroup(c.member, nowhere))

      const placeless = yield* makeGroup(c.member)
      const failure = yield* c.admin.client.adminGroupGeocoding.geocode({ path: { id: placeless.id } }).pipe(
        expectError(422, "VALIDATION_ERROR")
      )
      assert.deepStrictEqual(failure.fields, ["location"])
    }))

  it.effect("a new location clears the coordinates; other edits and the same location keep them", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      const group = yield* makeGroup(c.member, { location: "Paris, France" })
      const paris = yield* geocode(c.admin, group)
      near(paris, 48.8534, 2.3488)
      const update = (payload: Parameters<typeof c.member.client.groups.update>[0]["payload"]) =>
        Effect.map(c.member.client.groups.update({ path: { id: group.id }, payload }).pipe(expectOk), (r) => r.data)

      const renamed = yield* update({ name: "Menders of Paris", location: "Paris, France" })
      assert.deepStrictEqual([renamed.latitude, renamed.longitude], [paris.latitude, paris.longitude])

      const moved = yield* update({ location: "Lyon" })
      noCoordinates(moved)
      noCoordinates(yield* readGroup(c.other, group))
      near(yield* geocode(c.admin, group), 45.7485, 4.8467)

      noCoordinates(yield* update({ location: null }))
      const [row] = yield* Effect.flatMap(
        SqlClient.SqlClient,
        (sql) =>
          sql<{ geocode_status: string | null; geocoded_at: Date | null }>`
          SELECT geocode_status, geocoded_at FROM groups WHERE id = ${group.id}`
      ).pipe(Effect.orDie)
      assert.deepStrictEqual(row, { geocode_status: null, geocoded_at: null })
    }))

  it.effect("batch reports each group; only_missing skips geocoded ones; another community's group is untouched", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      const elsewhere = yield* community({ signIn: "token" })
      const theirs = yield* makeGroup(elsewhere.member, { location: "Madrid" })
      const bristol = yield* makeGroup(c.member, { location: "Bristol, UK" })
      const nowhere = yield* makeGroup(c.member, { location: "Xyzzyville Lower Marsh" })
      const placeless = yield* makeGroup(c.member)
      const gone = yield* makeGroup(c.member, { location: "Leeds" })
      yield* c.member.client.groups.delete({ path: { id: gone.id } }).pipe(expectOk)

      const report = yield* batch(c.admin, {
        group_ids: [bristol.id, nowhere.id, placeless.id, theirs.id, gone.id, 99_999_999, bristol.id]
      })
      const [ok, ...rest] = report.results
      assert.strictEqual(ok!.group_id, bristol.id)
      assert.strictEqual(ok!.status, "ok")
      assert.strictEqual(ok!.label, "Bristol, GB")
      near({ latitude: ok!.latitude ?? null, longitude: ok!.longitude ?? null }, 51.4545, -2.5879)
      assert.deepStrictEqual(rest, [
        { group_id: nowhere.id, status: "not_found" },
        { group_id: placeless.id, status: "skipped", reason: "the group has no location" },
        { group_id: theirs.id, status: "skipped", reason: "no such group in this community" },
        { group_id: gone.id, status: "skipped", reason: "no such group in this community" },
        { group_id: 99_999_999, status: "skipped", reason: "no such group in this community" }
      ])
      assert.deepInclude(report, { geocoded: 1, not_found: 1, failed: 0, skipped: 4, remaining: 0 })
      const seen = yield* readGroup(c.other, bristol)
      assert.deepStrictEqual([seen.latitude, seen.longitude], [ok!.latitude, ok!.longitude])
      // The other community's group was never geocoded.
      noCoordinates(yield* readGroup(elsewhere.other, theirs))

      const missing = yield* batch(c.admin, { group_ids: [bristol.id, nowhere.id], only_missing: true })
      assert.deepStrictEqual(missing.results, [
        { group_id: bristol.id, status: "skipped", reason: "already geocoded" },
        { group_id: nowhere.id, status: "not_found" }
      ])

      // No ids: the community's groups with a location, oldest first (deleted and placeless ones left out).
      const all = yield* rawRequest("POST", BATCH, { headers: c.adminHeaders })
      assert.strictEqual(all.status, 200, all.text)
      const everything = dataOf<{ results: Array<{ group_id: number; status: string }>; remaining: number }>(all.body)
      assert.deepStrictEqual(everything.results.map((r) => [r.group_id, r.status]), [
        [bristol.id, "ok"],
        [nowhere.id, "not_found"]
      ])
      assert.strictEqual(everything.remaining, 0)
      const onlyMissing = yield* batch(c.admin, { only_missing: true })
      assert.deepStrictEqual(onlyMissing.results, [{ group_id: nowhere.id, status: "not_found" }])
      noCoordinates(yield* readGroup(elsewhere.other, theirs))
    }))

  it.effect("another community's group → 404; a deleted or unknown group → 404", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      const elsewhere = yield* community({ signIn: "token" })
      const theirs = yield* makeGroup(elsewhere.member, { location: "Madrid" })
      yield* c.admin.client.adminGroupGeocoding.geocode({ path: { id: theirs.id } }).pipe(
        expectError(404, "NOT_FOUND")
      )
      noCoordinates(yield* readGroup(elsewhere.member, theirs))
      const gone = yield* makeGroup(c.member, { location: "Leeds" })
      yield* c.member.client.groups.delete({ path: { id: gone.id } }).pipe(expectOk)
      for (const id of [gone.id, 99_999_999]) {
        yield* c.admin.client.adminGroupGeocoding.geocode({ path: { id: GroupId.make(id) } }).pipe(
          expectError(404, "NOT_FOUND")
        )
      }
    }))

  it.effect("no token → 401; member, the group's owner, broker and coordinator → 403; nothing geocoded", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      const group = yield* makeGroup(c.member, { location: "Bristol, UK" })
      const anonymous = yield* apiClient(c.anonymous)
      yield* anonymous.adminGroupGeocoding.geocode({ path: { id: group.id } }).pipe(expectError(401, "AUTH_REQUIRED"))
      yield* anonymous.adminGroupGeocoding.batch({ payload: {} }).pipe(expectError(401, "AUTH_REQUIRED"))
      const broker = yield* makeActor(c.tenant, { role: "broker" }, "token")
      const coordinator = yield* makeActor(c.tenant, { role: "coordinator" }, "token")
      for (const who of [c.member, c.other, broker, coordinator]) {
        yield* who.client.adminGroupGeocoding.geocode({ path: { id: group.id } }).pipe(expectError(403, "FORBIDDEN"))
        yield* who.client.adminGroupGeocoding.batch({ payload: { group_ids: [group.id] } }).pipe(
          expectError(403, "FORBIDDEN")
        )
      }
      // An admin of another community naming this one: their token is not valid here.
      const elsewhere = yield* community({ signIn: "token" })
      const stranger = yield* apiClient({ ...elsewhere.adminHeaders, "x-tenant-id": String(c.tenant.id) })
      yield* stranger.adminGroupGeocoding.batch({ payload: {} }).pipe(expectError(401, "AUTH_REQUIRED"))
      noCoordinates(yield* readGroup(c.member, group))
    }))

  it.effect("bad batch bodies → 422 with the field; nothing geocoded", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      const group = yield* makeGroup(c.member, { location: "Bristol, UK" })
      const tooMany = Array.from({ length: 501 }, (_, i) => i + 1)
      const cases: Array<[unknown, string]> = [
        [{ group_ids: [] }, "group_ids"],
        [{ group_ids: tooMany }, "group_ids"],
        [{ group_ids: "all" }, "group_ids"],
        [{ group_ids: [group.id, 0] }, "group_ids.1"],
        [{ group_ids: [1.5] }, "group_ids.0"],
        [{ only_missing: "yes" }, "only_missing"],
        [{ groups: [group.id] }, "groups"]
      ]
      for (const [body, field] of cases) {
        const res = yield* rawRequest("POST", BATCH, { headers: c.adminHeaders, body: JSON.stringify(body) })
        assert.strictEqual(res.status, 422, `${JSON.stringify(body)}: ${res.text}`)
        assert.strictEqual(codeOf(res.body), "VALIDATION_ERROR")
        assert.deepStrictEqual(fieldsOf(res.body), [field], JSON.stringify(body))
      }
      noCoordinates(yield* readGroup(c.member, group))
    }))
})

/** The fake geocoder of the server below (set when the layer is built). */
const remote: { fake?: FakeGeocoder } = {}

const WithGeocoderUrl = Layer.unwrapScoped(Effect.map(fakeGeocoder, (fake) => {
  remote.fake = fake
  return TestApp({ GEOCODER_URL: `${fake.url}/geo` })
}))

layer(WithGeocoderUrl, { excludeTestServices: true, timeout: "120 seconds" })("group geocoding, GEOCODER_URL", (it) => {
  it.effect("the configured geocoder is asked for the location; its answer sets the coordinates", () =>
    Effect.gen(function*() {
      const fake = remote.fake!
      fake.answer = (query) => ({
        status: 200,
        body: query.get("q") === "Atlantis Harbour"
          ? JSON.stringify([{ lat: "36.5", lon: "-20.25", display_name: "Atlantis Harbour, Atlantic" }])
          : "[]"
      })
      const c = yield* community({ signIn: "token" })
      // A place no gazetteer knows: only the HTTP geocoder can find it.
      const group = yield* makeGroup(c.member, { location: "Atlantis Harbour" })
      const before = fake.requests.length
      const geocoded = yield* geocode(c.admin, group)
      assert.deepInclude(geocoded, {
        latitude: 36.5,
        longitude: -20.25,
        geocode_status: "ok",
        geocoded_as: "Atlantis Harbour, Atlantic"
      })
      const asked = fake.requests.slice(before)
      assert.strictEqual(asked.length, 1)
      assert.strictEqual(asked[0]!.path, "/geo/search")
      assert.deepStrictEqual(Object.fromEntries(asked[0]!.query), { q: "Atlantis Harbour", format: "json", limit: "1" })
      assert.match(asked[0]!.headers["user-agent"] ?? "", /^timebank-geocoder\/1/)

      // A place the gazetteer knows but the geocoder does not: not found.
      const bristol = yield* makeGroup(c.member, { location: "Bristol, UK" })
      const report = yield* batch(c.admin, { group_ids: [group.id, bristol.id] })
      assert.deepStrictEqual(report.results.map((r) => [r.group_id, r.status]), [[group.id, "ok"], [
        bristol.id,
        "not_found"
      ]])
    }))

  it.effect("a failing geocoder → 200 with failed, coordinates kept; a batch stops asking after repeated failures", () =>
    Effect.gen(function*() {
      const fake = remote.fake!
      fake.answer = () => ({ status: 500, body: "{\"error\": \"down\"}" })
      const c = yield* community({ signIn: "token" })
      const group = yield* makeGroup(c.member, { location: "Bristol, UK (failing)" })
      yield* setCoordinates(group, 51.45, -2.59)
      const answer = yield* geocode(c.admin, group)
      assert.deepInclude(answer, { geocode_status: "failed", latitude: 51.45, longitude: -2.59, geocoded_as: null })

      const groups = yield* Effect.forEach(
        Array.from({ length: 10 }, (_, i) => `Failing Town ${i}`),
        (location) => makeGroup(c.member, { location })
      )
      const before = fake.requests.length
      const report = yield* batch(c.admin, { group_ids: groups.map((g) => g.id) })
      assert.deepInclude(report, { geocoded: 0, not_found: 0, failed: 10, skipped: 0 })
      assert.isTrue(report.results.every((r) => r.status === "failed" && r.reason !== undefined))
      const asked = fake.requests.length - before
      assert.isBelow(asked, 10, "the batch stops asking a geocoder that keeps failing")
      assert.strictEqual(report.results.filter((r) => r.reason!.startsWith("not asked")).length, 10 - asked)
      for (const g of groups) noCoordinates(yield* readGroup(c.member, g))
    }))
})
