import { HttpApiBuilder, HttpApiEndpoint, HttpApiGroup, HttpClient } from "@effect/platform"
import { assert, it, layer } from "@effect/vitest"
import { Api, TenantMiddleware } from "@timebank/domain"
import { FeaturesLive, jsonLineLogger, makeHttpLive } from "@timebank/server"
import { Effect, Layer, Logger, Schema } from "effect"
import { randomBytes } from "node:crypto"
import { vi } from "vitest"
import { otlpCollector } from "../fixtures/otlpCollector.js"
import { makeTenant, tenantHeaders } from "../fixtures/tenants.js"
import { rawRequest, TestApp } from "../fixtures/TestApp.js"

// Every line the service writes to stdout, from the first (start-up) on: the JSON logger writes through console.log.
const written: Array<string> = []
vi.spyOn(console, "log").mockImplementation((...args: Array<unknown>) => void written.push(args.map(String).join(" ")))

/** Routes that log the way features do: in the handler, in a child span, in a forked fiber, and a defect. */
class LogProbeGroup extends HttpApiGroup.make("logProbe")
  .add(HttpApiEndpoint.get("lines", "/api/v2/_logprobe/lines").addSuccess(Schema.Struct({ ok: Schema.Boolean })))
  .add(HttpApiEndpoint.get("boom", "/api/v2/_logprobe/boom"))
  .middleware(TenantMiddleware)
{}

const LogProbeApi = Api.add(LogProbeGroup)

const LogProbeHandlers = HttpApiBuilder.group(LogProbeApi, "logProbe", (handlers) =>
  handlers
    .handle("lines", () =>
      Effect.gen(function*() {
        yield* Effect.logInfo("probe: in the handler")
        yield* Effect.logWarning("probe: in a child span").pipe(Effect.withSpan("LogProbe.child"))
        yield* Effect.logInfo("probe: in a forked fiber").pipe(Effect.fork, Effect.flatMap((f) => f.await))
        yield* Effect.logInfo("probe: annotated", { extra: 1 }).pipe(Effect.annotateLogs({ step: "last" }))
        return { ok: true }
      }))
    .handle("boom", () => Effect.die(new Error("probe defect"))))

const LogProbeHttpLive = makeHttpLive(
  LogProbeApi,
  HttpApiBuilder.api(LogProbeApi).pipe(Layer.provide(LogProbeHandlers), Layer.provide(FeaturesLive))
)

type Line = Record<string, unknown>

const parsed = (): Array<Line> => written.map((text) => JSON.parse(text) as Line)

/** A W3C trace context the request continues, so that its trace id is known in advance. */
const traceparent = () => {
  const traceId = randomBytes(16).toString("hex")
  return { traceId, header: `00-${traceId}-${randomBytes(8).toString("hex")}-01` }
}

/** A raw GET that continues `trace` (the test client would otherwise send a trace context of its own). */
const getIn = (path: string, trace: { readonly header: string }, headers: Record<string, string>) =>
  Effect.locally(
    rawRequest("GET", path, { headers: { ...headers, traceparent: trace.header } }),
    HttpClient.currentTracerPropagation,
    false
  )

layer(
  Layer.unwrapScoped(Effect.map(otlpCollector, (collector) =>
    TestApp(
      { LOG_FORMAT: "json", LOG_LEVEL: "Info", OTEL_EXPORTER_OTLP_ENDPOINT: collector.url },
      LogProbeHttpLive
    ))),
  { excludeTestServices: true, timeout: "90 seconds" }
)("LOG_FORMAT=json", (it) => {
  it.effect("every line on stdout is one JSON object with timestamp, level and message (start-up included)", () =>
    Effect.sync(() => {
      assert.isAbove(written.length, 0)
      for (const line of parsed()) {
        assert.match(String(line["timestamp"]), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
        assert.include(["TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL"], line["level"])
        assert.isDefined(line["message"])
      }
      assert.isTrue(parsed().some((line) => line["message"] === "database"), "the start-up's database line")
    }))

  it.effect("every line of a request carries its request id, tenant and trace id", () =>
    Effect.gen(function*() {
      const tenant = yield* makeTenant()
      const trace = traceparent()
      const requestId = `json-logs-${randomBytes(4).toString("hex")}`
      // Headers the typed client has no say over (request id, trace context): raw.
      const res = yield* getIn("/api/v2/_logprobe/lines", trace, {
        ...tenantHeaders(tenant),
        "x-request-id": requestId
      })
      assert.strictEqual(res.status, 200)

      const lines = parsed().filter((line) => line["request_id"] === requestId)
      assert.deepStrictEqual(lines.map((line) => line["message"]), [
        "probe: in the handler",
        "probe: in a child span",
        "probe: in a forked fiber",
        ["probe: annotated", { extra: 1 }]
      ])
      for (const line of lines) {
        assert.strictEqual(line["tenant_id"], tenant.id)
        assert.strictEqual(line["tenant"], tenant.slug)
        assert.strictEqual(line["trace_id"], trace.traceId)
        assert.match(String(line["span_id"]), /^[0-9a-f]{16}$/)
      }
      // The child span's line names that span; the others the request's server span.
      assert.notStrictEqual(lines[1]!["span_id"], lines[0]!["span_id"])
      assert.strictEqual(lines[3]!["step"], "last")
      assert.strictEqual(lines[1]!["level"], "WARN")
    }))

  it.effect("a defect's line, written by the edge after the handler, still carries request id, tenant and trace", () =>
    Effect.gen(function*() {
      const tenant = yield* makeTenant()
      const trace = traceparent()
      const requestId = `json-boom-${randomBytes(4).toString("hex")}`
      // Headers the typed client has no say over (request id, trace context): raw.
      const res = yield* getIn("/api/v2/_logprobe/boom", trace, { ...tenantHeaders(tenant), "x-request-id": requestId })
      assert.strictEqual(res.status, 500)
      const [line, ...more] = parsed().filter((l) => l["request_id"] === requestId)
      assert.deepStrictEqual(more, [])
      assert.strictEqual(line!["level"], "ERROR")
      assert.strictEqual(line!["message"], "unhandled failure")
      assert.strictEqual(line!["tenant_id"], tenant.id)
      assert.strictEqual(line!["trace_id"], trace.traceId)
      assert.include(String(line!["cause"]), "probe defect")
    }))
})

it.effect("with the tracer off (no OTEL_EXPORTER_OTLP_ENDPOINT) a line has no trace or span id", () =>
  Effect.gen(function*() {
    const lines: Array<string> = []
    const capture = Logger.replace(Logger.defaultLogger, Logger.map(jsonLineLogger, (line) => void lines.push(line)))
    yield* Effect.logInfo("off").pipe(Effect.withSpan("s"), Effect.withTracerEnabled(false), Effect.provide(capture))
    yield* Effect.logInfo("on").pipe(Effect.withSpan("s"), Effect.provide(capture))
    const [off, on] = lines.map((line) => JSON.parse(line) as Line)
    assert.strictEqual(off!["message"], "off")
    assert.isUndefined(off!["trace_id"])
    assert.isUndefined(off!["span_id"])
    // Control: the same line in a recorded span names it.
    assert.match(String(on!["trace_id"]), /^[0-9a-f]+$/)
  }))
