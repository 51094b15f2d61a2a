import { assert, describe, it } from "@effect/vitest"
import { AppConfig, redactQuery, redactUrl, TelemetryLive, untracedRequests, withTracePolicy } from "@timebank/server"
import { ConfigProvider, Context, Duration, Effect, Exit, Layer, Option, Schedule, Tracer } from "effect"
import { writeFileSync } from "node:fs"
import { expectStatus } from "../fixtures/client.js"
import { community } from "../fixtures/community.js"
import { answer, makeEvent } from "../fixtures/events.js"
import { pay } from "../fixtures/ledger.js"
import { otlpCollector, type ReceivedSpan, renderTrace } from "../fixtures/otlpCollector.js"
import { twoServers } from "../fixtures/servers.js"
import { apiClient, rawRequest } from "../fixtures/TestApp.js"

const RSVP_ROUTE = "/api/v2/events/:id/rsvp"
const TRANSFER_ROUTE = "/api/v2/wallet/transfers"
const SERVER = 2
const CLIENT = 3
const CONSUMER = 5

/** Waits until `ready` holds for what the collector has received (the exporters send every 100–200 ms here). */
const eventually = (ready: () => boolean, what: () => string, limit: Duration.DurationInput = "30 seconds") =>
  Effect.suspend(() => (ready() ? Effect.void : Effect.fail("pending" as const))).pipe(
    Effect.retry(Schedule.spaced("100 millis").pipe(Schedule.upTo(limit))),
    Effect.catchAll(() => Effect.die(new Error(what())))
  )

type Pick = (span: ReceivedSpan) => boolean

const childOf = (spans: ReadonlyArray<ReceivedSpan>, parent: ReceivedSpan, pick: Pick) =>
  spans.find((s) => s.parentSpanId === parent.spanId && s.traceId === parent.traceId && pick(s))

const descendantOf = (spans: ReadonlyArray<ReceivedSpan>, parent: ReceivedSpan, pick: Pick) => {
  const below = (span: ReceivedSpan): ReceivedSpan | undefined => {
    for (const child of spans.filter((s) => s.parentSpanId === span.spanId)) {
      if (pick(child)) return child
      const deeper = below(child)
      if (deeper !== undefined) return deeper
    }
    return undefined
  }
  return below(parent)
}

const showAttributes = (span: ReceivedSpan) => {
  const keys = [
    "http.route",
    "http.response.status_code",
    "tenant.id",
    "tenant.slug",
    "entity.type",
    "entity.id",
    "batch.size",
    "subscriber",
    "type",
    "db.query.text"
  ]
  const shown = keys.filter((k) => span.attributes[k] !== undefined).map((k) => {
    const value = String(span.attributes[k]).replace(/\s+/g, " ")
    return `${k}=${value.length > 90 ? `${value.slice(0, 89)}…` : value}`
  })
  return [`[runner ${String(span.resource["timebank.runner.address"])}]`, ...shown].join(" ")
}

/** The links of one RSVP trace from the HTTP span down to a statement of the entity's write, each by parent id. */
const rsvpChain = (spans: ReadonlyArray<ReceivedSpan>, server: ReceivedSpan) => {
  const trace = spans.filter((s) => s.traceId === server.traceId)
  const service = childOf(trace, server, (s) => s.name === "Events.rsvp")
  const client = service && descendantOf(trace, service, (s) => s.name === "Event.client.Rsvp")
  const entity = client && childOf(trace, client, (s) => /^Event\(\d+:\d+\)\.Rsvp$/.test(s.name))
  const batch = entity && childOf(trace, entity, (s) => s.name === "EventWriter.batch")
  // The statement that records the RSVP (the batch also reads the tenant and the event first).
  const sql = batch &&
    descendantOf(
      trace,
      batch,
      (s) => s.name === "sql.execute" && /event_rsvps/.test(String(s.attributes["db.query.text"]))
    )
  return { trace, service, client, entity, batch, sql }
}

describe("telemetry: traces and metrics over OTLP/HTTP JSON", () => {
  it.scopedLive(
    "one RSVP is one trace: HTTP span (route, tenant) → service → entity message (across runners) → SQL; metrics arrive",
    () =>
      Effect.gen(function*() {
        const collector = yield* otlpCollector
        const { onA, onB } = yield* twoServers({
          OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
          OTEL_BSP_SCHEDULE_DELAY: "100",
          OTEL_METRIC_EXPORT_INTERVAL: "200"
        })
        const c = yield* onA(community({ signIn: "token", fund: { member: 5 } }))
        const event = yield* onA(makeEvent(c.admin))
        // Through both processes: the event's entity lives on one runner, so one of the two RSVPs crosses over.
        yield* answer(c.member.client, event, "going")
        yield* answer(yield* onB(apiClient(c.other.headers)), event, "going")

        const rsvpServers = () =>
          collector.spans.filter((s) => s.kind === SERVER && s.attributes["http.route"] === RSVP_ROUTE)
        const complete = () => rsvpServers().filter((s) => rsvpChain(collector.spans, s).sql !== undefined)
        const trees = () =>
          rsvpServers().map((s) => renderTrace(rsvpChain(collector.spans, s).trace, showAttributes)).join("\n\n")
        yield* eventually(() => complete().length === 2, () => `RSVP traces incomplete:\n${trees()}`)

        const runnerOf = (span: ReceivedSpan) => span.resource["timebank.runner.address"]
        const crossings = complete().map((server) => {
          const chain = rsvpChain(collector.spans, server)
          // Route template and tenant on the HTTP server span; one trace id from the HTTP span to the statement.
          assert.strictEqual(server.name, "http.server POST")
          assert.strictEqual(server.attributes["http.response.status_code"], 200)
          assert.strictEqual(server.attributes["tenant.id"], c.tenant.id)
          assert.strictEqual(server.attributes["tenant.slug"], c.tenant.slug)
          // Above it only the caller: the test's HTTP client, whose span sent `traceparent`.
          const caller = chain.trace.find((s) => s.spanId === server.parentSpanId)
          if (caller !== undefined) assert.deepStrictEqual([caller.name, caller.kind], ["http.client POST", CLIENT])
          assert.strictEqual(chain.entity!.attributes["entity.type"], "Event")
          assert.strictEqual(chain.entity!.attributes["entity.id"], `${c.tenant.id}:${event.id}`)
          for (const span of [chain.service!, chain.client!, chain.entity!, chain.batch!, chain.sql!]) {
            assert.strictEqual(span.traceId, server.traceId)
          }
          // The service and client spans run where the request came in; the entity where its shard lives.
          assert.strictEqual(runnerOf(chain.service!), runnerOf(server))
          assert.strictEqual(runnerOf(chain.batch!), runnerOf(chain.entity!))
          return runnerOf(server) !== runnerOf(chain.entity!)
        })
        assert.deepStrictEqual(crossings.filter(Boolean).length, 1, trees())
        assert.strictEqual(
          collector.spans.find((s) => s.name === "http.server POST")?.resource["service.name"],
          "timebank"
        )

        // Statements outside any trace (pollers) are not exported; every exported one has a parent.
        assert.isTrue(
          collector.spans.filter((s) => s.name === "sql.execute").every((s) => s.parentSpanId !== undefined)
        )

        // Metrics: request durations by route template, method and status, from either process.
        yield* eventually(
          () =>
            collector.points.some((p) =>
              p.metric === "http.server.request.duration" && p.attributes["http.route"] === RSVP_ROUTE &&
              p.attributes["http.response.status_code"] === "200"
            ),
          () =>
            `no request-duration point yet; metrics: ${[...new Set(collector.points.map((p) => p.metric))].join(", ")}`
        )

        // Outbox subscribers: each delivery of the RSVPs' events is a consumer span (a trace of its own, after the
        // commit) with the subscriber's statements below it.
        const deliveries = () =>
          collector.spans.filter((s) =>
            s.kind === CONSUMER && s.name.startsWith("OutboxPublisher.deliver") &&
            s.attributes["subscriber"] !== undefined &&
            descendantOf(collector.spans, s, (d) => d.name === "sql.execute") !== undefined
          )
        yield* eventually(
          () => deliveries().length > 0,
          () =>
            `no outbox delivery span with statements; consumer spans: ${
              JSON.stringify(collector.spans.filter((s) => s.kind === CONSUMER).map((s) => [s.name, s.attributes]))
            }`,
          "60 seconds"
        )

        // Each delivery links to the span that recorded its events, so the RSVPs' traces lead to what they caused.
        const rsvpTraces = new Set(complete().map((s) => s.traceId))
        const linkedToRsvp = () =>
          collector.spans.filter((s) =>
            s.kind === CONSUMER && s.name.startsWith("OutboxPublisher.deliver") &&
            s.links.some((l) => rsvpTraces.has(l.traceId))
          )
        yield* eventually(
          () => linkedToRsvp().length > 0,
          () =>
            `no delivery links to an RSVP's trace; consumer spans and links: ${
              JSON.stringify(collector.spans.filter((s) => s.kind === CONSUMER).map((s) => [s.name, s.links]))
            }`,
          "60 seconds"
        )
        const linked = linkedToRsvp()[0]!
        const target = linked.links.find((l) => rsvpTraces.has(l.traceId))!
        assert.match(collector.spans.find((s) => s.spanId === target.spanId)?.name ?? "", /^Outbox\.append(All)?$/)

        // A transfer's group commit continues the transfer's trace: HTTP → Ledger.batch → its statements.
        yield* pay(c.member.client, { recipient_id: c.other.id, amount: 1 }).pipe(expectStatus(201))
        const transferBatch = () => {
          const server = collector.spans.find((s) => s.kind === SERVER && s.attributes["http.route"] === TRANSFER_ROUTE)
          const batch = server && descendantOf(collector.spans, server, (s) => s.name === "Ledger.batch")
          const write = batch && childOf(collector.spans, batch, (s) => s.name === "LedgerWriter.writeBatch")
          return write && descendantOf(
            collector.spans,
            write,
            (s) => s.name === "sql.execute" && /ledger_entries/.test(String(s.attributes["db.query.text"]))
          )
        }
        yield* eventually(
          () => transferBatch() !== undefined,
          () => {
            const server = collector.spans.find((s) => s.attributes["http.route"] === TRANSFER_ROUTE)
            return `transfer trace incomplete:\n${
              server === undefined
                ? "no server span"
                : renderTrace(collector.spans.filter((s) => s.traceId === server.traceId), showAttributes)
            }`
          }
        )

        const file = process.env["RSVP_TRACE_FILE"]
        if (file !== undefined) {
          const crossing = complete().find((s) => runnerOf(s) !== runnerOf(rsvpChain(collector.spans, s).entity!))!
          const delivery = collector.spans.filter((s) => s.traceId === deliveries()[0]!.traceId)
          const trees = [rsvpChain(collector.spans, crossing).trace, delivery].map((t) =>
            renderTrace(t, showAttributes)
          )
          writeFileSync(file, `${trees.join("\n\n")}\n`)
        }
      }),
    120_000
  )

  it.scopedLive(
    "credentials stay out of spans: secret headers and query tokens are redacted",
    () =>
      Effect.gen(function*() {
        const collector = yield* otlpCollector
        const { onA } = yield* twoServers({
          OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
          OTEL_BSP_SCHEDULE_DELAY: "100"
        })
        const path = "/api/v2/notifications/unsubscribe?token=s3cr3t-token&lang=en"
        const headers = {
          "x-federation-api-key": "fed-key-123",
          "x-federation-signature": "deadbeef",
          "x-csrf-token": "csrf-456",
          "authorization": "Bearer abc.def.ghi",
          "x-request-id": "redaction-probe"
        }
        yield* onA(rawRequest("GET", path, { headers }))
        const span = () =>
          collector.spans.find((s) =>
            s.kind === SERVER && s.attributes["http.request.header.x-request-id"] === "redaction-probe"
          )
        yield* eventually(() => span() !== undefined, () => "no server span for the probe")
        const attributes = span()!.attributes
        for (const name of ["x-federation-api-key", "x-federation-signature", "x-csrf-token", "authorization"]) {
          assert.strictEqual(attributes[`http.request.header.${name}`], "<redacted>", name)
        }
        assert.strictEqual(attributes["url.query"], "token=REDACTED&lang=en")
        assert.notInclude(String(attributes["url.full"]), "s3cr3t")
        assert.notInclude(JSON.stringify(collector.spans.map((s) => s.attributes)), "fed-key-123")
      }),
    60_000
  )

  it("redactUrl / redactQuery replace only credential parameters", () => {
    assert.strictEqual(redactUrl("http://h/p?token=a&x=1"), "http://h/p?token=REDACTED&x=1")
    assert.strictEqual(redactUrl("http://h/p"), "http://h/p")
    assert.strictEqual(redactQuery("code=1&state=2&Access_Token=3"), "code=REDACTED&state=2&Access_Token=REDACTED")
    assert.strictEqual(redactQuery("flag&%74oken=x"), "flag&%74oken=REDACTED")
  })

  it("the trace policy exports no statement outside a trace, but keeps those inside one", () => {
    const ended: Array<string> = []
    const policy = withTracePolicy(recordingTracer([], ended))
    const root = policy.span("sql.execute", Option.none(), Context.empty(), [], 0n, "client", {})
    root.end(1n, Exit.void)
    const parent = policy.span("Events.rsvp", Option.none(), Context.empty(), [], 0n, "internal", {})
    const child = policy.span("sql.execute", Option.some(parent), Context.empty(), [], 0n, "client", {})
    child.end(1n, Exit.void)
    parent.end(1n, Exit.void)
    assert.deepStrictEqual(ended, ["sql.execute", "Events.rsvp"])
    assert.isFalse(root.sampled)
  })

  it.effect("without OTEL_EXPORTER_OTLP_ENDPOINT the tracer is off: no span reaches a tracer, HTTP spans are skipped", () =>
    Effect.gen(function*() {
      const noEndpoint = Layer.setConfigProvider(ConfigProvider.fromMap(new Map()))
      const made: Array<string> = []
      const traced = Effect.currentSpan.pipe(Effect.withSpan("Events.rsvp"), Effect.withSpan("http.server POST"))
      // Control: with the tracer on, the same spans are made.
      yield* traced.pipe(Effect.withTracer(recordingTracer(made, [])))
      assert.deepStrictEqual(made, ["http.server POST", "Events.rsvp"])

      made.length = 0
      const span = yield* traced.pipe(
        Effect.provide(TelemetryLive.pipe(Layer.provide(AppConfig.Default), Layer.provide(noEndpoint))),
        Effect.withTracer(recordingTracer(made, []))
      )
      assert.deepStrictEqual(made, [])
      assert.isFalse(span.sampled)
      const config = yield* AppConfig.pipe(Effect.provide(AppConfig.Default), Effect.provide(noEndpoint))
      assert.isTrue(untracedRequests(config)({} as never))
    }))
})

/** A tracer that notes the spans made and ended, for checking what reaches a tracer. */
const recordingTracer = (made: Array<string>, ended: Array<string>) =>
  Tracer.make({
    context: (f) => f(),
    span: (name, parent, context, links, startTime, kind) => {
      made.push(name)
      return {
        _tag: "Span",
        name,
        spanId: name,
        traceId: "t",
        parent,
        context,
        links: [...links],
        sampled: true,
        kind,
        status: { _tag: "Started", startTime },
        attributes: new Map(),
        attribute() {},
        event() {},
        addLinks() {},
        end: () => void ended.push(name)
      }
    }
  })
