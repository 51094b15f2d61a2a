import { OtlpMetrics, OtlpSerialization, OtlpTracer } from "@effect/opentelemetry"
import { FetchHttpClient, Headers, type HttpServerRequest, HttpTraceContext } from "@effect/platform"
import { Effect, Layer, Metric, MetricBoundaries, MetricLabel, Option, Tracer } from "effect"
import { hostname } from "node:os"
import { AppConfig } from "./AppConfig.js"
import { LoggingLive } from "./Logging.js"

/**
 * Request headers that carry credentials besides the library's own list (`authorization`, `cookie`, `set-cookie`,
 * `x-api-key`): the server span records every header, so these are written as `<redacted>`.
 */
export const REDACTED_HEADERS = [
  "proxy-authorization",
  "x-csrf-token",
  "x-federation-api-key",
  "x-federation-signature"
] as const

/** Query parameters that are credentials (the unsubscribe link's signed token, OAuth's codes and tokens). */
const SECRET_PARAMS = /^(token|access_token|refresh_token|code|client_secret|api_key|key|signature|password)$/i

/** A query string (`a=1&token=…`) with the values of credential parameters replaced (pure; exported for tests). */
export const redactQuery = (query: string): string =>
  query.split("&").map((part) => {
    const eq = part.indexOf("=")
    if (eq === -1) return part
    let name = part.slice(0, eq)
    try {
      name = decodeURIComponent(name)
    } catch {
      // An undecodable name is compared as sent.
    }
    return SECRET_PARAMS.test(name) ? `${part.slice(0, eq)}=REDACTED` : part
  }).join("&")

/** A URL with its query's credential parameters redacted (pure; exported for tests). */
export const redactUrl = (url: string): string => {
  const at = url.indexOf("?")
  return at === -1 ? url : url.slice(0, at + 1) + redactQuery(url.slice(at + 1))
}

const redactAttribute = (key: string, value: unknown) =>
  typeof value !== "string"
    ? value
    : key === "url.full"
    ? redactUrl(value)
    : key === "url.query"
    ? redactQuery(value)
    : value

/** Request durations by route, method and status, from the HTTP server spans (only while telemetry is on). */
const requestDuration = Metric.histogram(
  "http.server.request.duration",
  MetricBoundaries.exponential({ start: 0.001, factor: 2, count: 14 }),
  "Duration of HTTP server requests, in seconds"
).pipe(Metric.withConstantInput(0), Metric.tagged("unit", "s"))

const recordRequest = (span: Tracer.Span, endTime: bigint) => {
  if (span.status._tag !== "Started") return
  const seconds = Number(endTime - span.status.startTime) / 1e9
  const tag = (key: string, attribute: string) =>
    MetricLabel.make(key, String(span.attributes.get(attribute) ?? "unknown"))
  requestDuration.unsafeUpdate(seconds, [
    tag("http.route", "http.route"),
    tag("http.request.method", "http.request.method"),
    tag("http.response.status_code", "http.response.status_code")
  ])
}

/** A span that is never exported: for statements no traced work asked for (pollers, heartbeats). */
const unexported = (
  name: string,
  parent: Option.Option<Tracer.AnySpan>,
  context: Tracer.Span["context"],
  kind: Tracer.SpanKind,
  startTime: bigint
): Tracer.Span => ({
  _tag: "Span",
  name,
  spanId: "0000000000000000",
  traceId: "00000000000000000000000000000000",
  parent,
  context,
  status: { _tag: "Started", startTime },
  attributes: new Map(),
  links: [],
  sampled: false,
  kind,
  attribute() {},
  event() {},
  end() {},
  addLinks() {}
})

/**
 * Our policy over the OTLP tracer: SQL statements outside any trace (the outbox's and the cluster's polling, every
 * 50 ms to 1 s) are not exported, or they would bury the traces of requests; credential query parameters are
 * redacted from the server span's URL; an ending server span records the request-duration metric.
 */
export const withTracePolicy = (tracer: Tracer.Tracer): Tracer.Tracer =>
  Tracer.make({
    context: tracer.context,
    span(name, parent, context, links, startTime, kind, options) {
      if (Option.isNone(parent) && name === "sql.execute") return unexported(name, parent, context, kind, startTime)
      const span = tracer.span(name, parent, context, links, startTime, kind, options)
      if (kind !== "server") return span
      const attribute = span.attribute.bind(span)
      const end = span.end.bind(span)
      span.attribute = (key, value) => attribute(key, redactAttribute(key, value))
      span.end = (endTime, exit) => {
        recordRequest(span, endTime)
        end(endTime, exit)
      }
      return span
    }
  })

/** Resource attributes: who sent the data (service, process, cluster runner). */
const resourceOf = (config: AppConfig) => ({
  serviceName: config.otelServiceName,
  attributes: {
    "service.instance.id": `${hostname()}:${process.pid}`,
    "host.name": hostname(),
    "process.pid": process.pid,
    "timebank.cluster.mode": config.clusterMode,
    "timebank.runner.address": `${config.runnerHost}:${config.runnerPort}`
  }
})

const exportingLayer = (config: AppConfig, endpoint: string) => {
  const base = endpoint.replace(/\/+$/, "")
  const resource = resourceOf(config)
  const tracer = Layer.unwrapScoped(
    Effect.map(
      OtlpTracer.make({ url: `${base}/v1/traces`, resource, exportInterval: `${config.otelSpanDelayMs} millis` }),
      (otlp) => Layer.setTracer(withTracePolicy(otlp))
    )
  )
  const metrics = OtlpMetrics.layer({
    url: `${base}/v1/metrics`,
    resource,
    exportInterval: `${config.otelMetricIntervalMs} millis`
  })
  return Layer.mergeAll(
    tracer,
    metrics,
    Layer.fiberRefLocallyScopedWith(Headers.currentRedactedNames, (names) => [...names, ...REDACTED_HEADERS])
  ).pipe(Layer.provide(OtlpSerialization.layerJson), Layer.provide(FetchHttpClient.layer))
}

/**
 * Traces and metrics over OTLP/HTTP (JSON) when `OTEL_EXPORTER_OTLP_ENDPOINT` is set. Unset, the tracer is
 * switched off: every span (`Effect.fn`, SQL, cluster messages) is a no-op and HTTP requests get no span at all, so
 * an untraced deployment (and every bench) pays next to nothing. Spans still buffered are sent when the layer closes.
 */
export const TelemetryLive = Layer.unwrapEffect(Effect.map(AppConfig, (config) =>
  Option.match(config.otelEndpoint, {
    onNone: () => Layer.setTracerEnabled(false),
    onSome: (endpoint) => exportingLayer(config, endpoint)
  })))

/** For `HttpMiddleware.withTracerDisabledWhen`: no server span (nor its header copying) while tracing is off. */
export const untracedRequests = (config: AppConfig): (request: HttpServerRequest.HttpServerRequest) => boolean => {
  const off = Option.isNone(config.otelEndpoint)
  return () => off
}

/** The span the caller runs in, if any: what a queued message remembers so that its batch can continue its trace. */
export const callerSpan: Effect.Effect<Option.Option<Tracer.AnySpan>> = Effect.serviceOption(Tracer.ParentSpan)

/** The W3C `traceparent` of the current span when it is recorded, else null: what a stored outbox event remembers. */
export const currentTraceParent: Effect.Effect<string | null> = Effect.map(
  callerSpan,
  (span) =>
    Option.isSome(span) && span.value._tag === "Span" && span.value.sampled
      ? HttpTraceContext.toHeaders(span.value)["traceparent"] ?? null
      : null
)

/** OpenTelemetry's default limit of links per span. */
const MAX_LINKS = 128

/** Links to the spans that stored `traceParents` ({@link currentTraceParent}), each once; nulls and junk are skipped. */
export const linksTo = (traceParents: Iterable<string | null>): Array<Tracer.SpanLink> => {
  const links = new Map<string, Tracer.SpanLink>()
  for (const traceparent of traceParents) {
    if (traceparent === null) continue
    const span = HttpTraceContext.w3c(Headers.unsafeFromRecord({ traceparent }))
    if (Option.isNone(span) || links.has(span.value.spanId)) continue
    links.set(span.value.spanId, { _tag: "SpanLink", span: span.value, attributes: {} })
    if (links.size >= MAX_LINKS) break
  }
  return [...links.values()]
}

/**
 * Runs a group-commit batch in a span of its own that continues the trace of its first message and links the
 * others: the statements of one RSVP stay in that RSVP's trace even though a writer fiber runs them.
 */
export const withBatchSpan =
  (name: string, spans: ReadonlyArray<Option.Option<Tracer.AnySpan>>) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
    const known = spans.flatMap((span) => Option.isSome(span) ? [span.value] : [])
    const [first, ...rest] = known
    return Effect.withSpan(effect, name, {
      ...(first === undefined ? { root: true } : { parent: first }),
      links: rest.map((span) => ({ _tag: "SpanLink", span, attributes: {} })),
      attributes: { "batch.size": spans.length },
      captureStackTrace: false
    })
  }

/** Telemetry and the log format of a serving process (both read AppConfig). */
export const ObservabilityLive = Layer.merge(TelemetryLive, LoggingLive).pipe(Layer.provide(AppConfig.Default))
