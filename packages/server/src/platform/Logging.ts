import {
  Cause,
  Console,
  Context,
  Effect,
  FiberRef,
  FiberRefs,
  HashMap,
  HashSet,
  Inspectable,
  Layer,
  List,
  Logger,
  Tracer
} from "effect"
import { AppConfig } from "./AppConfig.js"

const render = (value: unknown): unknown => (typeof value === "string" ? value : Inspectable.toJSON(value))

/** The trace and span a line was logged in, when a tracer records them (no ids from a switched-off tracer). */
const traceOf = (context: FiberRefs.FiberRefs) => {
  const span = Context.getOption(FiberRefs.getOrDefault(context, FiberRef.currentContext), Tracer.ParentSpan)
  return span._tag === "Some" && span.value.sampled
    ? { trace_id: span.value.traceId, span_id: span.value.spanId }
    : undefined
}

/**
 * One JSON object per line: `timestamp`, `level`, `message`, then the line's annotations (a request's `request_id`
 * and `tenant_id`/`tenant`, a subscriber's name, …), `trace_id`/`span_id` while tracing is on, and `cause` for
 * failures. The fixed fields win over an annotation of the same name.
 */
export const jsonLineLogger = Logger.make<unknown, string>(
  ({ annotations, cause, context, date, logLevel, message, spans }) => {
    const line: Record<string, unknown> = {}
    for (const [key, value] of HashMap.toEntries(annotations)) line[key] = render(value)
    const messages = Array.isArray(message) ? message : [message]
    line["timestamp"] = date.toISOString()
    line["level"] = logLevel.label
    line["message"] = messages.length === 1 ? render(messages[0]) : messages.map(render)
    const trace = traceOf(context)
    if (trace !== undefined) Object.assign(line, trace)
    if (!Cause.isEmpty(cause)) line["cause"] = Cause.pretty(cause, { renderErrorCause: true })
    if (List.isCons(spans)) {
      const now = date.getTime()
      line["spans"] = Object.fromEntries(List.toArray(spans).map((s) => [s.label, now - s.startTime]))
    }
    return Inspectable.stringifyCircular(line)
  }
)

/** `LOG_FORMAT=json`: the JSON lines instead of the console format (the default logger or runMain's pretty one). */
export const LoggingLive = Layer.unwrapEffect(Effect.map(AppConfig, (config) =>
  config.logFormat === "json"
    ? Layer.fiberRefLocallyScopedWith(FiberRef.currentLoggers, (loggers) =>
      loggers.pipe(
        HashSet.remove(Logger.defaultLogger),
        HashSet.remove(Logger.prettyLoggerDefault),
        HashSet.add(Logger.withConsoleLog(jsonLineLogger))
      ))
    : Layer.empty))

/**
 * Tags the rest of the request with its tenant: one update of the log annotations (kept by every later line of the
 * request, up to the edge's own, which set `request_id` once) and, when the request is traced, the server span's
 * attributes. Two steps on the fiber and no failure path (not `annotateCurrentSpan`, which allocates an exception
 * when there is no span): it runs on every request with a tenant.
 */
export const tagRequestTenant = (tenant: { readonly id: number; readonly slug: string }) =>
  Effect.withFiberRuntime<void>((fiber) => {
    const span = Context.getOption(fiber.currentContext, Tracer.ParentSpan)
    if (span._tag === "Some" && span.value._tag === "Span") {
      span.value.attribute("tenant.id", tenant.id)
      span.value.attribute("tenant.slug", tenant.slug)
    }
    return FiberRef.update(
      FiberRef.currentLogAnnotations,
      (annotations) => HashMap.set(HashMap.set(annotations, "tenant_id", tenant.id), "tenant", tenant.slug)
    )
  })

/** The start-up banner: as written in the text format, one log line (its lines as `lines`) in the JSON format. */
export const printBanner = (text: string) =>
  Effect.flatMap(AppConfig, (config) =>
    config.logFormat === "json"
      ? Effect.logInfo("timebank API started").pipe(
        Effect.annotateLogs({ lines: text.split("\n").filter((line) => line !== "") })
      )
      : Console.log(text))
