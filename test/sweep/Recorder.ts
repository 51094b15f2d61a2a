import { dialectOfPath, dialectProblem } from "./Dialects.js"
import type { RawRequest, RawResponse } from "./HttpSender.js"
import { isObject } from "./OpenApiModel.js"
import { isTokenRoute, oauthErrorProblem } from "./PartnerCalls.js"

/**
 * What every response is checked for, and the tally: no 5xx, errors in the envelope of decisions D1, an
 * `X-Request-Id` on every response (the one sent, when one was sent), no marker of the other tenant in any body,
 * the status a pass expects, and refusal of input the server promises to refuse.
 */

export type FindingKind = "5xx" | "envelope" | "request-id" | "leak" | "status" | "unrefused" | "no-answer"

export interface Finding {
  readonly kind: FindingKind
  readonly pass: string
  readonly op: string
  readonly case: string
  readonly actor: string
  readonly status: number
  readonly detail: string
  /** Enough to send the request again: method, path, headers (tokens elided), body (escaped, clipped). */
  readonly request: string
  readonly response: string
}

export interface Expectation {
  /** Allowed statuses; 429 is always allowed (and counted). */
  readonly statuses?: ReadonlyArray<number>
  /** Allowed `errors[0].code` values when the status is one of `statuses` and is an error. */
  readonly codes?: ReadonlyArray<string>
  /** Statuses that prove nothing either way (a body refused before the record is looked up): counted, not failed. */
  readonly inconclusive?: ReadonlyArray<number>
  readonly mustRefuse?: boolean
  /** Strings of the other tenant that must not appear in the response (unless the request itself carried them). */
  readonly markers?: ReadonlyArray<string>
  /** Strings of the caller's own tenant: counted when seen, to show that the leak search can see markers at all. */
  readonly ownMarkers?: ReadonlyArray<string>
}

export interface OperationTally {
  requests: number
  readonly byPass: Map<string, number>
  readonly statuses: Map<number, number>
}

export interface Counts {
  requests: number
  fiveXX: number
  envelope: number
  requestId: number
  leaks: number
  status: number
  unrefused: number
  noAnswer: number
  rateLimited: number
  inconclusive: number
  unsendable: number
  /** Responses that showed a marker of the caller's own tenant (the control of the leak search). */
  ownMarkerSeen: number
}

const clip = (text: string, max = 400) => (text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text)

/** A request as text a person can replay: the body's bytes as an escaped string, tokens elided. */
export const describeRequest = (request: RawRequest): string => {
  const headers = Object.entries(request.headers)
    .filter(([k]) => k !== "x-forwarded-for")
    .map(([k, v]) => `${k}: ${k === "authorization" || k === "cookie" ? `${v.slice(0, 14)}…` : clip(v, 120)}`)
  const body = request.body === undefined
    ? ""
    : typeof request.body === "string"
    ? `\n  body: ${clip(JSON.stringify(request.body), 600)}`
    : `\n  body (bytes, base64): ${clip(Buffer.from(request.body).toString("base64"), 600)}`
  return `${request.method} ${clip(request.path, 300)}\n  ${headers.join("\n  ")}${body}`
}

/** Why a body is not the error envelope `{"errors": [{"code", "message", "field"?}, ...]}`, or undefined. */
export const envelopeProblem = (text: string): string | undefined => {
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    return `body is not JSON: ${clip(JSON.stringify(text), 120)}`
  }
  if (!isObject(body)) return "body is not a JSON object"
  const keys = Object.keys(body)
  if (keys.length !== 1 || keys[0] !== "errors") return `top-level keys are [${keys.join(", ")}], not [errors]`
  const errors = body["errors"]
  if (!Array.isArray(errors) || errors.length === 0) return "errors is not a non-empty array"
  for (const [i, entry] of errors.entries()) {
    if (!isObject(entry)) return `errors[${i}] is not an object`
    const extra = Object.keys(entry).filter((k) => !["code", "message", "field"].includes(k))
    if (extra.length > 0) return `errors[${i}] has extra keys [${extra.join(", ")}]`
    if (typeof entry["code"] !== "string" || entry["code"] === "") return `errors[${i}].code is not a string`
    if (typeof entry["message"] !== "string") return `errors[${i}].message is not a string`
    if ("field" in entry && typeof entry["field"] !== "string") return `errors[${i}].field is not a string`
  }
  return undefined
}

export const firstCode = (text: string): string | undefined => {
  try {
    const body = JSON.parse(text) as unknown
    const errors = isObject(body) ? body["errors"] : undefined
    const first = Array.isArray(errors) ? errors[0] : undefined
    return isObject(first) && typeof first["code"] === "string" ? first["code"] : undefined
  } catch {
    return undefined
  }
}

const requestText = (request: RawRequest) =>
  `${request.path}\n${JSON.stringify(request.headers)}\n${
    request.body === undefined
      ? ""
      : typeof request.body === "string"
      ? request.body
      : Buffer.from(request.body).toString("latin1")
  }`.toLowerCase()

/**
 * Why an error of the OAuth token route is not in its shape. Refusals of the request itself (400, 401, and the 422
 * an RFC 6749 endpoint does not have: a malformed form is its `invalid_request`) are RFC 6749's
 * `{"error", "error_description"}` (decisions D1, D13a); what comes before the route reads the request (413 body
 * size, 429, 503 `FEDERATION_DISABLED`, 404/405 routing) is the D1 envelope.
 */
const tokenRouteProblem = (status: number, text: string): string | undefined => {
  if (status === 400 || status === 401 || status === 422) {
    const problem = oauthErrorProblem(text)
    return problem === undefined ? undefined : `the token route's ${status} is not an RFC 6749 error: ${problem}`
  }
  return envelopeProblem(text)
}

export class Recorder {
  readonly findings: Array<Finding> = []
  readonly notes: Array<string> = []
  readonly counts: Counts = {
    requests: 0,
    fiveXX: 0,
    envelope: 0,
    requestId: 0,
    leaks: 0,
    status: 0,
    unrefused: 0,
    noAnswer: 0,
    rateLimited: 0,
    inconclusive: 0,
    unsendable: 0,
    ownMarkerSeen: 0
  }
  readonly operations = new Map<string, OperationTally>()
  /** Findings kept in full per kind; the rest are only counted. */
  private readonly keepPerKind = 200

  tally(op: string): OperationTally {
    let tally = this.operations.get(op)
    if (tally === undefined) {
      tally = { requests: 0, byPass: new Map(), statuses: new Map() }
      this.operations.set(op, tally)
    }
    return tally
  }

  unsendable(pass: string, op: string, name: string, reason: string) {
    this.counts.unsendable++
    this.notes.push(`${pass} ${op} [${name}]: not sent by the client (${reason})`)
  }

  /** Checks one exchange; returns the findings it produced. */
  check(
    pass: string,
    op: string,
    name: string,
    actor: string,
    request: RawRequest,
    response: RawResponse,
    expectation: Expectation = {}
  ): ReadonlyArray<Finding> {
    this.counts.requests++
    const tally = this.tally(op)
    tally.requests++
    tally.byPass.set(pass, (tally.byPass.get(pass) ?? 0) + 1)
    tally.statuses.set(response.status, (tally.statuses.get(response.status) ?? 0) + 1)
    const found: Array<Finding> = []
    const add = (kind: FindingKind, detail: string) =>
      found.push({
        kind,
        pass,
        op,
        case: name,
        actor,
        status: response.status,
        detail,
        request: describeRequest(request),
        response: clip(response.text, 600)
      })
    const status = response.status
    if (status === 0) add("no-answer", `no HTTP answer: ${response.transportError ?? "unknown"}`)
    if (status >= 500) add("5xx", `status ${status}`)
    if (status === 429) this.counts.rateLimited++
    if (status >= 400) {
      const path = request.path.split("?")[0] ?? ""
      const dialect = dialectOfPath(path)
      const problem = isTokenRoute(path)
        ? tokenRouteProblem(status, response.text)
        : dialect !== undefined
        ? dialectProblem(dialect, status, response.text)
        : envelopeProblem(response.text)
      if (problem !== undefined) add("envelope", problem)
    }
    if (status !== 0) {
      const id = response.headers["x-request-id"]
      // A request whose head Node's parser refused (URL or headers too long) is answered before its headers are
      // read: the answer has a fresh id, which cannot be the one sent.
      const unread = response.headers["connection"] === "close" && [400, 408, 414, 431].includes(status)
      if (typeof id !== "string" || id === "") add("request-id", "no X-Request-Id header")
      else if (response.sentRequestId !== undefined && id !== response.sentRequestId && !unread) {
        add("request-id", `X-Request-Id ${id} is not the ${response.sentRequestId} sent`)
      }
    }
    if (expectation.markers !== undefined && expectation.markers.length > 0 && status !== 0) {
      const sent = requestText(request)
      const text = response.text.toLowerCase() + JSON.stringify(response.headers).toLowerCase()
      for (const marker of expectation.markers) {
        if (sent.includes(marker)) continue
        if (text.includes(marker)) add("leak", `the response holds the other tenant's marker ${marker}`)
      }
    }
    if (expectation.ownMarkers?.some((m) => response.text.toLowerCase().includes(m)) === true) {
      this.counts.ownMarkerSeen++
    }
    if (expectation.mustRefuse === true && status >= 200 && status < 300) {
      add("unrefused", "input with control characters or lone surrogates was accepted")
    }
    if (expectation.statuses !== undefined && status !== 0 && status !== 429) {
      const code = status >= 400 ? firstCode(response.text) : undefined
      const allowed = expectation.statuses.includes(status) &&
        (expectation.codes === undefined || status < 400 || (code !== undefined && expectation.codes.includes(code)))
      if (!allowed) {
        if (expectation.inconclusive?.includes(status) === true) this.counts.inconclusive++
        else {add(
            "status",
            `status ${status}${code === undefined ? "" : ` ${code}`}, expected ${expectation.statuses.join("/")}`
          )}
      }
    }
    for (const finding of found) this.count(finding)
    return found
  }

  private count(finding: Finding) {
    const key = ({
      "5xx": "fiveXX",
      envelope: "envelope",
      "request-id": "requestId",
      leak: "leaks",
      status: "status",
      unrefused: "unrefused",
      "no-answer": "noAnswer"
    } as const)[finding.kind]
    this.counts[key]++
    if (this.findings.filter((f) => f.kind === finding.kind).length < this.keepPerKind) this.findings.push(finding)
  }

  /** Findings that fail the sweep. */
  get failures() {
    const c = this.counts
    return c.fiveXX + c.envelope + c.requestId + c.leaks + c.status + c.unrefused + c.noAnswer
  }
}
