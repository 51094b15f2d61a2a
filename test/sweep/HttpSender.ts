import { randomBytes } from "node:crypto"
import http from "node:http"
import https from "node:https"

/**
 * Raw HTTP for the sweep: the path is sent exactly as given (percent escapes, over-long ids, `%00`), bodies as the
 * bytes given (invalid UTF-8, any content type). A typed client would refuse to send most of these requests.
 */

export interface RawRequest {
  readonly method: string
  /** Path and query, already percent-encoded as they go on the wire. */
  readonly path: string
  readonly headers: Readonly<Record<string, string>>
  readonly body?: string | Uint8Array
}

export interface RawResponse {
  /** 0 when no HTTP answer arrived (connection reset, timeout): `transportError` says why. */
  readonly status: number
  readonly headers: http.IncomingHttpHeaders
  readonly text: string
  readonly transportError?: string
  /** The request id the sweep sent, when it sent one (every other request), to check that it is echoed. */
  readonly sentRequestId?: string
}

export interface SenderOptions {
  /** Send a random `X-Forwarded-For` per request, so that a server with TRUST_PROXY=true counts no rate limits. */
  readonly forwardedFor: boolean
  readonly timeoutMs?: number
  readonly maxSockets?: number
}

const MAX_RESPONSE_BYTES = 8 * 1024 * 1024

const randomIp = () => {
  const [a, b, c] = randomBytes(3)
  return `10.${a}.${b}.${c}`
}

/** An error the client raised before anything was sent (a header value Node will not put on the wire). */
export class Unsendable extends Error {}

export class HttpSender {
  private readonly agent: http.Agent
  private readonly transport: typeof http | typeof https
  private seq = 0
  /** Requests that reached the server (or were attempted on the wire). */
  sent = 0

  constructor(readonly baseUrl: string, readonly options: SenderOptions) {
    const url = new URL(baseUrl)
    this.transport = url.protocol === "https:" ? https : http
    this.agent = new this.transport.Agent({ keepAlive: true, maxSockets: options.maxSockets ?? 16 })
  }

  close() {
    this.agent.destroy()
  }

  /** A JSON request with parsed answer, for setting up the world (throws on transport errors). */
  async json(method: string, path: string, headers: Record<string, string>, body?: unknown) {
    const response = await this.send({
      method,
      path,
      headers: body === undefined ? headers : { "content-type": "application/json", ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    if (response.status === 0) throw new Error(`${method} ${path}: ${response.transportError}`)
    let parsed: unknown
    try {
      parsed = response.text === "" ? undefined : JSON.parse(response.text)
    } catch {
      parsed = undefined
    }
    return { ...response, body: parsed }
  }

  send(request: RawRequest): Promise<RawResponse> {
    const base = new URL(this.baseUrl)
    const seq = ++this.seq
    const headers: Record<string, string> = { ...request.headers }
    const lower = new Set(Object.keys(headers).map((h) => h.toLowerCase()))
    if (this.options.forwardedFor && !lower.has("x-forwarded-for")) headers["x-forwarded-for"] = randomIp()
    const sentRequestId = !lower.has("x-request-id") && seq % 2 === 0 ? `sweep-${seq}` : undefined
    if (sentRequestId !== undefined) headers["x-request-id"] = sentRequestId
    const body = request.body === undefined
      ? undefined
      : typeof request.body === "string"
      ? Buffer.from(request.body, "utf8")
      : Buffer.from(request.body)
    if (body !== undefined && !lower.has("content-length")) headers["content-length"] = String(body.byteLength)
    const prefix = base.pathname.replace(/\/$/, "")
    return new Promise<RawResponse>((resolve, reject) => {
      let settled = false
      const finish = (response: RawResponse) => {
        if (settled) return
        settled = true
        resolve(response)
      }
      let req: http.ClientRequest
      try {
        req = this.transport.request({
          agent: this.agent,
          protocol: base.protocol,
          hostname: base.hostname,
          port: base.port,
          method: request.method,
          path: prefix + request.path,
          headers,
          timeout: this.options.timeoutMs ?? 60_000
        })
      } catch (error) {
        reject(new Unsendable(error instanceof Error ? error.message : String(error)))
        return
      }
      this.sent++
      let answered = false
      req.on("response", (res) => {
        answered = true
        const chunks: Array<Buffer> = []
        let size = 0
        res.on("data", (chunk: Buffer) => {
          size += chunk.byteLength
          if (size <= MAX_RESPONSE_BYTES) chunks.push(chunk)
        })
        const done = () =>
          finish({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString("utf8"),
            ...(sentRequestId === undefined ? {} : { sentRequestId })
          })
        res.on("end", done)
        res.on("error", done)
        res.on("aborted", done)
        res.on("close", done)
      })
      req.on("timeout", () => req.destroy(new Error("timeout")))
      req.on("error", (error) => {
        // After the answer began, its own end/abort settles the request (a reset while we still wrote the body).
        if (answered) return
        finish({
          status: 0,
          headers: {},
          text: "",
          transportError: error.message,
          ...(sentRequestId === undefined ? {} : { sentRequestId })
        })
      })
      // The server may answer (413) and close before the whole body is written: the answer still counts.
      if (body === undefined) req.end()
      else req.end(body)
    })
  }
}
