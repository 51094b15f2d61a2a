import { HttpClient, HttpClientRequest, HttpServer } from "@effect/platform"
import { assert, describe, it as plain, layer } from "@effect/vitest"
import { checkUrl, firstUnstorable, MAX_JSON_DEPTH, scanJson } from "@timebank/server"
import { Effect, Stream } from "effect"
import { connect } from "node:net"
import { codeOf, errorsOf, fieldOf } from "./fixtures/bodies.js"
import { expectStatus } from "./fixtures/client.js"
import { community } from "./fixtures/community.js"
import { balanceOf, countTransactions, fund, pay, transfer, verifyLedger } from "./fixtures/ledger.js"
import { ProbeHttpLive } from "./fixtures/ProbeApi.js"
import { makeTenant, tenantHeaders } from "./fixtures/tenants.js"
import { rawRequest, TestApp } from "./fixtures/TestApp.js"

/** Characters no text field may hold, as JSON would carry them. */
const REFUSED = ["\u0000", "\u0001", "\u0008", "\u000b", "\u000c", "\u001b", "\u001f", "\ud800", "\udfff", "x\ud83dy"]
/** Characters that look odd but are fine: tab, LF, CR, a surrogate pair (emoji), DEL, non-ASCII. */
const ALLOWED = ["a\tb", "line\nbreak", "cr\rlf", "😀 ok", "\u007f", "Grüße, 東京"]

/** A request with raw bytes as its body. */
const bytesRequest = (path: string, headers: Record<string, string>, body: Uint8Array, contentType: string) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const response = yield* client.execute(
      HttpClientRequest.post(path).pipe(
        HttpClientRequest.setHeaders(headers),
        HttpClientRequest.bodyUint8Array(body, contentType)
      )
    )
    const text = yield* response.text
    return { status: response.status, headers: response.headers, body: JSON.parse(text) as unknown }
  }).pipe(Effect.scoped, Effect.orDie)

/** A JSON body of `size` bytes sent in chunks, without a Content-Length. */
const streamedRequest = (path: string, headers: Record<string, string>, size: number) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const chunk = new Uint8Array(64 * 1024).fill(0x20)
    const chunks = [
      Buffer.from("{\"title\":\""),
      ...Array.from({ length: Math.ceil(size / chunk.length) }, () => chunk)
    ]
    const response = yield* client.execute(
      HttpClientRequest.post(path).pipe(
        HttpClientRequest.setHeaders(headers),
        HttpClientRequest.bodyStream(Stream.fromIterable(chunks), { contentType: "application/json" })
      )
    )
    return { status: response.status, body: (yield* response.json) as unknown }
  }).pipe(Effect.scoped, Effect.orDie)

const multipartRequest = (path: string, headers: Record<string, string>, form: FormData) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const response = yield* client.execute(
      HttpClientRequest.post(path).pipe(HttpClientRequest.setHeaders(headers), HttpClientRequest.bodyFormData(form))
    )
    return { status: response.status, body: (yield* response.json) as unknown }
  }).pipe(Effect.scoped, Effect.orDie)

/** Sends bytes over a plain socket (requests an HTTP client would refuse to make) and returns the raw answer. */
const rawHttp = (request: string) =>
  Effect.gen(function*() {
    const server = yield* HttpServer.HttpServer
    const port = server.address._tag === "TcpAddress" ? server.address.port : 0
    return yield* Effect.async<string>((resume) => {
      let answer = ""
      const socket = connect(port, "127.0.0.1", () => socket.write(request))
      socket.on("data", (chunk) => (answer += chunk.toString("utf8")))
      socket.on("close", () => resume(Effect.succeed(answer)))
      socket.on("error", () => resume(Effect.succeed(answer)))
    })
  })

/** Status, headers (lower-cased) and JSON body of a raw HTTP answer. */
const parseAnswer = (answer: string) => {
  const [head = "", body = ""] = answer.split("\r\n\r\n")
  const [statusLine = "", ...headerLines] = head.split("\r\n")
  const headers = Object.fromEntries(headerLines.map((line) => {
    const colon = line.indexOf(":")
    return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()]
  }))
  return { status: Number(statusLine.split(" ")[1]), headers, body: JSON.parse(body) as unknown }
}

const nested = (depth: number) => `${"{\"a\":".repeat(depth)}1${"}".repeat(depth)}`

describe("input scan (pure)", () => {
  plain("firstUnstorable finds C0 controls but tab, LF and CR, and unpaired surrogates", () => {
    for (const s of REFUSED) assert.notStrictEqual(firstUnstorable(`ok${s}`), -1, JSON.stringify(s))
    for (const s of ALLOWED) assert.strictEqual(firstUnstorable(s), -1, JSON.stringify(s))
    assert.strictEqual(firstUnstorable("ab\u0000"), 2)
    assert.strictEqual(firstUnstorable("\ud83d\ude00\ud800"), 2)
  })

  plain("scanJson reports every refused string with its dotted path, and depth beyond the limit", () => {
    const verdict = scanJson({ a: "ok", b: ["x", "y\u0000"], c: { "k\u0001": "v", d: "\ud800" } })
    assert.strictEqual(verdict._tag, "Refused")
    if (verdict._tag === "Refused") {
      assert.deepStrictEqual(verdict.strings.map((s) => s.field).sort(), ["b.1", "c.d", "c.k\\u0001"])
    }
    assert.strictEqual(scanJson(JSON.parse(nested(MAX_JSON_DEPTH)))._tag, "Clean")
    assert.strictEqual(scanJson(JSON.parse(nested(MAX_JSON_DEPTH + 1)))._tag, "TooDeep")
    assert.strictEqual(scanJson(JSON.parse(nested(100_000)))._tag, "TooDeep")
  })

  plain("checkUrl refuses bad escapes and control characters in path and query, naming the parameter", () => {
    assert.deepStrictEqual(checkUrl("/a/b?search=ok&x=%E2%9C%93"), [])
    assert.deepStrictEqual(checkUrl("/a?search=%00").map((r) => r.field), ["search"])
    assert.deepStrictEqual(checkUrl("/a?search=%ff").map((r) => r.field), ["search"])
    assert.deepStrictEqual(checkUrl("/a?q=%ED%A0%80").map((r) => r.field), ["q"])
    assert.deepStrictEqual(checkUrl("/a%00b").map((r) => r.field), ["path"])
    assert.deepStrictEqual(checkUrl("/a%zz").map((r) => r.field), ["path"])
    assert.deepStrictEqual(checkUrl("/a?tab=%09&nl=%0A"), [])
    // Plain printable ASCII needs no decoding; anything else still goes through every check.
    assert.deepStrictEqual(checkUrl("/a/b-c_d.e~f?q=x+y&sort=-name&x='!*()$,;:@"), [])
    assert.deepStrictEqual(checkUrl("/a?q=\u00e9"), [])
    assert.deepStrictEqual(checkUrl("/a\u0001b").map((r) => r.field), ["path"])
    assert.deepStrictEqual(checkUrl("/a?q=\u007f&r=\u0002").map((r) => r.field), ["r"])
  })
})

layer(TestApp({}, ProbeHttpLive), { excludeTestServices: true, timeout: "120 seconds" })(
  "the input guard at the edge",
  (it) => {
    it.effect("JSON strings holding C0 controls or lone surrogates are 422 on their field, anywhere in the body", () =>
      Effect.gen(function*() {
        const tenant = yield* makeTenant()
        const post = (body: unknown) =>
          rawRequest("POST", "/api/v2/_probe/notes", { headers: tenantHeaders(tenant), body: JSON.stringify(body) })
        for (const bad of REFUSED) {
          const res = yield* post({ title: `a${bad}b`, tags: ["fine", bad], meta: { note: bad } })
          assert.strictEqual(res.status, 422, JSON.stringify(bad))
          assert.deepStrictEqual(
            errorsOf(res.body).map((e) => [e.code, e.field]).sort(),
            [["VALIDATION_ERROR", "meta.note"], ["VALIDATION_ERROR", "tags.1"], ["VALIDATION_ERROR", "title"]],
            JSON.stringify(bad)
          )
        }
        for (const fine of ALLOWED) {
          const res = yield* post({ title: fine, tags: [fine], meta: { note: fine } })
          assert.strictEqual(res.status, 200, JSON.stringify(fine))
          assert.deepStrictEqual(res.body, { data: { title: fine, tags: [fine], meta: { note: fine } }, meta: {} })
        }
        const badKey = yield* post({ title: "x", "ti\u0000tle": "y" })
        assert.strictEqual(badKey.status, 422)
        assert.strictEqual(fieldOf(badKey.body), "ti\\u0000tle")
      }))

    it.effect("query and path values with control characters or bad escapes are 400 INVALID_REQUEST", () =>
      Effect.gen(function*() {
        const tenant = yield* makeTenant()
        const get = (path: string) => rawRequest("GET", path, { headers: tenantHeaders(tenant) })
        for (
          const [query, field] of [["%00", "search"], ["a%01", "search"], ["%ff", "search"], ["%ED%A0%80", "search"]]
        ) {
          const res = yield* get(`/api/v2/_probe/search/word?search=${query}`)
          assert.strictEqual(res.status, 400, query)
          assert.deepStrictEqual(errorsOf(res.body).map((e) => [e.code, e.field]), [["INVALID_REQUEST", field]], query)
        }
        for (const path of ["a%00b", "%ff", "x%1Fy"]) {
          const res = yield* get(`/api/v2/_probe/search/${path}`)
          assert.strictEqual(res.status, 400, path)
          assert.deepStrictEqual(errorsOf(res.body).map((e) => [e.code, e.field]), [["INVALID_REQUEST", "path"]], path)
        }
        const ok = yield* get("/api/v2/_probe/search/caf%C3%A9?search=tab%09ok")
        assert.strictEqual(ok.status, 200)
        assert.deepStrictEqual(ok.body, { data: { word: "café", search: "tab\tok" }, meta: {} })
      }))

    it.effect("bodies: invalid UTF-8 and nesting beyond 64 levels are 400 INVALID_JSON before decoding", () =>
      Effect.gen(function*() {
        const tenant = yield* makeTenant()
        const headers = tenantHeaders(tenant)
        const invalidUtf8 = new Uint8Array([...Buffer.from("{\"title\":\"a"), 0xff, 0xfe, ...Buffer.from("\"}")])
        const bad = yield* bytesRequest("/api/v2/_probe/notes", headers, invalidUtf8, "application/json")
        assert.strictEqual(bad.status, 400)
        assert.strictEqual(codeOf(bad.body), "INVALID_JSON")
        for (const depth of [MAX_JSON_DEPTH + 1, 5_000, 100_000]) {
          const res = yield* rawRequest("POST", "/api/v2/_probe/notes", { headers, body: nested(depth) })
          assert.strictEqual(res.status, 400, String(depth))
          assert.deepStrictEqual(errorsOf(res.body), [{
            code: "INVALID_JSON",
            message: "Request body is nested too deeply"
          }])
          assert.ok(res.headers["x-request-id"])
        }
        // At the limit the body is read and decoded: it is simply not a note.
        const deepest = yield* rawRequest("POST", "/api/v2/_probe/notes", { headers, body: nested(MAX_JSON_DEPTH) })
        assert.strictEqual(deepest.status, 422)
        for (const body of ["[]", "\"text\"", "null", "42", "true"]) {
          const res = yield* rawRequest("POST", "/api/v2/_probe/notes", { headers, body })
          assert.strictEqual(res.status, 422, body)
          assert.strictEqual(codeOf(res.body), "VALIDATION_ERROR", body)
        }
        const huge = yield* rawRequest("POST", "/api/v2/_probe/notes", {
          headers,
          body: JSON.stringify({ title: "x".repeat(2 * 1024 * 1024) })
        })
        assert.strictEqual(huge.status, 413)
        assert.strictEqual(codeOf(huge.body), "PAYLOAD_TOO_LARGE")
        assert.ok(huge.headers["x-request-id"])
        // Without a declared length (chunked) the cap is found while reading: still a 413 envelope, not a reset.
        const chunked = yield* streamedRequest("/api/v2/_probe/notes", headers, 2 * 1024 * 1024)
        assert.strictEqual(chunked.status, 413)
        assert.strictEqual(codeOf(chunked.body), "PAYLOAD_TOO_LARGE")
      }))

    it.effect("a 100k-character string is decoded once, and an error about it stays small", () =>
      Effect.gen(function*() {
        const tenant = yield* makeTenant()
        const res = yield* rawRequest("POST", "/api/v2/_probe/items/1", {
          headers: tenantHeaders(tenant),
          body: JSON.stringify({ name: "x".repeat(100_000), count: "y".repeat(100_000) })
        })
        assert.strictEqual(res.status, 422)
        assert.strictEqual(fieldOf(res.body), "count")
        assert.isBelow(res.text.length, 2_000)
      }))

    it.effect("multipart: no boundary is 400; a field holding NUL is 422 on that field; clean fields pass", () =>
      Effect.gen(function*() {
        const tenant = yield* makeTenant()
        const headers = tenantHeaders(tenant)
        const noBoundary = yield* bytesRequest(
          "/api/v2/_probe/upload",
          headers,
          new Uint8Array(Buffer.from("--x\r\nContent-Disposition: form-data; name=\"caption\"\r\n\r\nhi\r\n--x--\r\n")),
          "multipart/form-data"
        )
        assert.strictEqual(noBoundary.status, 400)
        assert.deepStrictEqual(errorsOf(noBoundary.body).map((e) => [e.code, e.field]), [[
          "INVALID_REQUEST",
          "content-type"
        ]])
        const bad = new FormData()
        bad.append("caption", "a\u0000b")
        const refused = yield* multipartRequest("/api/v2/_probe/upload", headers, bad)
        assert.strictEqual(refused.status, 422)
        assert.deepStrictEqual(errorsOf(refused.body).map((e) => [e.code, e.field]), [["VALIDATION_ERROR", "caption"]])
        const good = new FormData()
        good.append("caption", "Grüße 😀")
        const accepted = yield* multipartRequest("/api/v2/_probe/upload", headers, good)
        assert.strictEqual(accepted.status, 200)
        assert.deepStrictEqual(accepted.body, { data: { caption: "Grüße 😀" }, meta: {} })
      }))

    it.effect("URLs and headers over the limits are 414 and 431 in the envelope, with X-Request-Id", () =>
      Effect.gen(function*() {
        const tenant = yield* makeTenant()
        const long = yield* rawRequest("GET", `/api/v2/_probe/search/${"w".repeat(9_000)}`, {
          headers: tenantHeaders(tenant)
        })
        assert.strictEqual(long.status, 414)
        assert.strictEqual(codeOf(long.body), "URI_TOO_LONG")
        assert.ok(long.headers["x-request-id"])
        const cases = [
          [`GET /api/v2/_probe/search/${"w".repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`, 414, "URI_TOO_LONG"],
          [`GET /api/v2/health HTTP/1.1\r\nHost: x\r\nX-Big: ${"b".repeat(20_000)}\r\n\r\n`, 431, "HEADERS_TOO_LARGE"],
          ["GET /api/v2/health HTTP/1.1\r\nHost: x\r\nX-Tenant-Slug: a\u0001b\r\n\r\n", 400, "BAD_REQUEST"],
          ["NONSENSE\r\n\r\n", 400, "BAD_REQUEST"]
        ] as const
        for (const [request, status, code] of cases) {
          const answer = parseAnswer(yield* rawHttp(request))
          assert.strictEqual(answer.status, status, code)
          assert.strictEqual(answer.headers["content-type"], "application/json")
          assert.match(answer.headers["x-request-id"] ?? "", /^[0-9a-f-]{36}$/)
          assert.strictEqual(codeOf(answer.body), code)
        }
      }))

    it.effect("every response carries X-Request-Id: docs, documents, health, unknown routes, wrong methods", () =>
      Effect.gen(function*() {
        for (
          const [method, path] of [
            ["GET", "/api/docs"],
            ["GET", "/api/v2/openapi.json"],
            ["GET", "/api/v2/health"],
            ["GET", "/api/framework/health"],
            ["GET", "/nowhere"],
            ["GET", "/uploads/none.png"],
            ["DELETE", "/api/v2/health"]
          ] as const
        ) {
          const res = yield* rawRequest(method, path)
          assert.ok(res.headers["x-request-id"], `${method} ${path}`)
        }
      }))
  }
)

layer(TestApp(), { excludeTestServices: true, timeout: "120 seconds" })("the input guard on real routes", (it) => {
  it.effect("a transfer whose description holds NUL or a lone surrogate is 422 and moves nothing; the next one works", () =>
    Effect.gen(function*() {
      const c = yield* community()
      yield* fund(c.adminHeaders, c.member.id, 10)
      for (const description of ["pay\u0000ment", "lone \ud800"]) {
        const res = yield* transfer(c.memberHeaders, { recipient_id: c.other.id, amount: 1, description })
        assert.strictEqual(res.status, 422)
        assert.deepStrictEqual(errorsOf(res.body).map((e) => [e.code, e.field]), [["VALIDATION_ERROR", "description"]])
      }
      const invalidUtf8 = Buffer.concat([
        Buffer.from(`{"recipient_id":${c.other.id},"amount":1,"description":"x`),
        Buffer.from([0xc3, 0x28]),
        Buffer.from("\"}")
      ])
      const garbled = yield* bytesRequest("/api/v2/wallet/transfers", c.memberHeaders, invalidUtf8, "application/json")
      assert.strictEqual(garbled.status, 400)
      assert.strictEqual(codeOf(garbled.body), "INVALID_JSON")
      assert.strictEqual(yield* balanceOf(c.memberHeaders), 10)
      const before = yield* countTransactions(c.tenant.id)
      const started = Date.now()
      yield* pay(c.member.client, { recipient_id: c.other.id, amount: 2, description: "Grüße 😀" }).pipe(
        expectStatus(201)
      )
      assert.isBelow(Date.now() - started, 1_000)
      assert.strictEqual(yield* balanceOf(c.memberHeaders), 8)
      assert.strictEqual(yield* countTransactions(c.tenant.id), before + 1)
      assert.isTrue((yield* verifyLedger(c.tenant.id)).ok)
    }))

  it.effect("list searches with %00 are 400 on field search, never 500", () =>
    Effect.gen(function*() {
      const c = yield* community()
      for (
        const path of [
          "/api/v2/listings",
          "/api/v2/events",
          "/api/v2/volunteering/organisations",
          "/api/v2/admin/users",
          "/api/v2/admin/listings"
        ]
      ) {
        const res = yield* rawRequest("GET", `${path}?search=%00`, { headers: c.adminHeaders })
        assert.strictEqual(res.status, 400, path)
        assert.deepStrictEqual(errorsOf(res.body).map((e) => [e.code, e.field]), [["INVALID_REQUEST", "search"]], path)
      }
    }))

  it.effect("a CSV import holding a control character is 422 on file and creates nobody", () =>
    Effect.gen(function*() {
      const c = yield* community()
      const form = new FormData()
      form.append("file", new Blob(["email,first_name,last_name\r\nnew@example.org,A\u0000n,Ex\r\n"]), "users.csv")
      const res = yield* multipartRequest("/api/v2/admin/users/import", c.adminHeaders, form)
      assert.strictEqual(res.status, 422)
      assert.strictEqual(fieldOf(res.body), "file")
      assert.include(errorsOf(res.body)[0]!.message, "line 2")
      const users = yield* c.admin.client.adminUsers.list({ urlParams: { search: "new@example.org" } })
      assert.deepStrictEqual(users.data, [])
    }))
})
