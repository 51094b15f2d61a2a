import { HttpApiClient, HttpClient, HttpClientRequest } from "@effect/platform"
import { assert, layer } from "@effect/vitest"
import { CursorPage, encodeCursor, ValidationFailedResponse } from "@timebank/domain"
import { Effect, Schema } from "effect"
import { errorsOf } from "./fixtures/bodies.js"
import { ProbeApi, ProbeHttpLive } from "./fixtures/ProbeApi.js"
import { makeTenant, tenantHeaders } from "./fixtures/tenants.js"
import { rawRequest, TestApp } from "./fixtures/TestApp.js"

type CursorPageOfInt = Schema.Schema.Type<ReturnType<typeof CursorPage<typeof Schema.Int>>>

const probeClient = (headers: Record<string, string>) =>
  HttpApiClient.make(ProbeApi, { transformClient: HttpClient.mapRequest(HttpClientRequest.setHeaders(headers)) })

const post = (tenant: { id: number }, path: string, body: string) =>
  rawRequest("POST", path, { headers: tenantHeaders(tenant), body })

layer(TestApp({}, ProbeHttpLive), { excludeTestServices: true, timeout: "90 seconds" })(
  "envelopes and errors",
  (it) => {
    it.effect("success is {data, meta}", () =>
      Effect.gen(function*() {
        const tenant = yield* makeTenant()
        const res = yield* post(tenant, "/api/v2/_probe/items/7", JSON.stringify({ name: "Sam", count: 2 }))
        assert.strictEqual(res.status, 200)
        assert.deepStrictEqual(res.body, { data: { id: 7, name: "Sam", count: 2 }, meta: {} })
      }))

    it.effect("schema failures are 422 VALIDATION_ERROR with one entry per bad field", () =>
      Effect.gen(function*() {
        const tenant = yield* makeTenant()
        const res = yield* post(tenant, "/api/v2/_probe/items/7", JSON.stringify({ name: "x", count: -1, tags: [1] }))
        assert.strictEqual(res.status, 422)
        const errors = errorsOf(res.body)
        assert.deepStrictEqual(errors.map((e) => [e.code, e.field]).sort(), [
          ["VALIDATION_ERROR", "count"],
          ["VALIDATION_ERROR", "name"],
          ["VALIDATION_ERROR", "tags.0"]
        ])
        for (const e of errors) assert.ok(e.message.length > 0)
        const missing = yield* post(tenant, "/api/v2/_probe/items/7", JSON.stringify({ name: "Sam" }))
        assert.strictEqual(missing.status, 422)
        assert.deepStrictEqual(errorsOf(missing.body).map((e) => e.field), ["count"])
        for (const body of ["[]", "\"text\"", "null", "42"]) {
          const wrongShape = yield* post(tenant, "/api/v2/_probe/items/7", body)
          assert.strictEqual(wrongShape.status, 422, body)
          assert.strictEqual(errorsOf(wrongShape.body)[0]!.code, "VALIDATION_ERROR")
        }
      }))

    it.effect("a 422 body decodes with the contract's schema into ValidationFailed with its issues", () =>
      Effect.gen(function*() {
        const tenant = yield* makeTenant()
        // The typed client refuses to send an invalid payload, so send it raw and decode the answer as clients do.
        const res = yield* post(tenant, "/api/v2/_probe/items/1", JSON.stringify({ name: "ab", count: 0 }))
        const error = yield* Schema.decodeUnknown(ValidationFailedResponse)(res.body)
        assert.deepStrictEqual(error.issues.map((i) => i.field).sort(), ["count", "name"])
        assert.include(error.message, "count")
      }))

    it.effect("a body that is not JSON is 400 INVALID_JSON; over 1 MiB is 413 PAYLOAD_TOO_LARGE", () =>
      Effect.gen(function*() {
        const tenant = yield* makeTenant()
        const bad = yield* post(tenant, "/api/v2/_probe/items/7", "{\"name\": \"Sam\",")
        assert.strictEqual(bad.status, 400)
        assert.deepStrictEqual(errorsOf(bad.body), [{
          code: "INVALID_JSON",
          message: "Request body is not valid JSON"
        }])
        const huge = yield* post(
          tenant,
          "/api/v2/_probe/items/7",
          JSON.stringify({ name: "x".repeat(1024 * 1024 + 10), count: 1 })
        )
        assert.strictEqual(huge.status, 413)
        assert.strictEqual(errorsOf(huge.body)[0]!.code, "PAYLOAD_TOO_LARGE")
      }))

    it.effect("path ids that are not positive integers are 404 NOT_FOUND", () =>
      Effect.gen(function*() {
        const tenant = yield* makeTenant()
        for (const id of ["abc", "0", "-5", "1.5", "1e3x", "99999999999999999999"]) {
          const res = yield* post(tenant, `/api/v2/_probe/items/${id}`, JSON.stringify({ name: "Sam", count: 2 }))
          assert.strictEqual(res.status, 404, id)
          assert.strictEqual(errorsOf(res.body)[0]!.code, "NOT_FOUND", id)
        }
      }))

    it.effect("cursor pages: cursor on every page but the last; a cursor that does not decode is 422 on field cursor", () =>
      Effect.gen(function*() {
        const tenant = yield* makeTenant()
        const client = yield* probeClient(tenantHeaders(tenant))
        const seen: Array<number> = []
        let cursor: number | undefined = undefined
        let pages = 0
        do {
          const page: CursorPageOfInt = yield* client.probe.page({
            urlParams: { per_page: 10, ...(cursor === undefined ? {} : { cursor }) }
          })
          pages++
          seen.push(...page.data)
          assert.strictEqual(page.meta.per_page, 10)
          if (page.meta.has_more) {
            assert.ok(page.meta.cursor)
            const raw = yield* rawRequest("GET", `/api/v2/_probe/numbers?per_page=10&cursor=${page.meta.cursor}`, {
              headers: tenantHeaders(tenant)
            })
            assert.strictEqual(raw.status, 200)
            cursor = page.data[page.data.length - 1]
          } else {
            assert.strictEqual(page.meta.cursor, undefined)
            cursor = undefined
          }
        } while (cursor !== undefined)
        assert.strictEqual(pages, 3)
        assert.deepStrictEqual(seen, Array.from({ length: 25 }, (_, i) => i + 1))

        const last = yield* rawRequest("GET", `/api/v2/_probe/numbers?per_page=10&cursor=${encodeCursor(20)}`, {
          headers: tenantHeaders(tenant)
        })
        assert.deepStrictEqual(last.body, { data: [21, 22, 23, 24, 25], meta: { per_page: 10, has_more: false } })

        for (const bad of ["%%%", "bm90LWpzb24", encodeCursor("text"), ""]) {
          const res = yield* rawRequest("GET", `/api/v2/_probe/numbers?cursor=${encodeURIComponent(bad)}`, {
            headers: tenantHeaders(tenant)
          })
          assert.strictEqual(res.status, 422, bad)
          assert.deepStrictEqual(
            errorsOf(res.body).map((e) => [e.code, e.field]),
            [["VALIDATION_ERROR", "cursor"]],
            bad
          )
        }
        for (const perPage of ["0", "51", "abc", "2.5"]) {
          const res = yield* rawRequest("GET", `/api/v2/_probe/numbers?per_page=${perPage}`, {
            headers: tenantHeaders(tenant)
          })
          assert.strictEqual(res.status, 422, perPage)
          assert.strictEqual(errorsOf(res.body)[0]!.field, "per_page")
        }
      }))

    it.effect("a gated feature that is off answers 403 FEATURE_DISABLED; on by default", () =>
      Effect.gen(function*() {
        const on = yield* makeTenant()
        const off = yield* makeTenant({ features: { events: false } })
        const allowed = yield* rawRequest("GET", "/api/v2/_probe/gated", { headers: tenantHeaders(on) })
        assert.strictEqual(allowed.status, 200)
        const denied = yield* rawRequest("GET", "/api/v2/_probe/gated", { headers: tenantHeaders(off) })
        assert.strictEqual(denied.status, 403)
        assert.strictEqual(errorsOf(denied.body)[0]!.code, "FEATURE_DISABLED")
        const client = yield* probeClient(tenantHeaders(off))
        assert.strictEqual((yield* Effect.flip(client.probe.gated()))._tag, "FeatureDisabled")
      }))

    it.effect("a typed domain error keeps its status, code and field, and the client decodes it", () =>
      Effect.gen(function*() {
        const tenant = yield* makeTenant()
        const res = yield* rawRequest("GET", "/api/v2/_probe/conflict", { headers: tenantHeaders(tenant) })
        assert.strictEqual(res.status, 409)
        assert.deepStrictEqual(res.body, {
          errors: [{ code: "ALREADY_EXISTS", message: "That name is taken", field: "name" }]
        })
        const client = yield* probeClient(tenantHeaders(tenant))
        const error = yield* Effect.flip(client.probe.conflict())
        assert.strictEqual(error._tag, "AlreadyExists")
        if (error._tag === "AlreadyExists") assert.strictEqual(error.field, "name")
      }))

    it.effect("a defect is 500 SERVER_ERROR with the request id and nothing internal", () =>
      Effect.gen(function*() {
        const tenant = yield* makeTenant()
        const res = yield* rawRequest("GET", "/api/v2/_probe/boom", {
          headers: { ...tenantHeaders(tenant), "x-request-id": "trace-me-42" }
        })
        assert.strictEqual(res.status, 500)
        assert.strictEqual(res.headers["x-request-id"], "trace-me-42")
        const [entry] = errorsOf(res.body)
        assert.strictEqual(entry!.code, "SERVER_ERROR")
        assert.include(entry!.message, "trace-me-42")
        assert.notInclude(res.text, "SELECT")
        assert.notInclude(res.text, "internals")
      }))
  }
)
