import { randomUUID } from "node:crypto"
import { createServer, type Server, STATUS_CODES } from "node:http"
import type { Duplex } from "node:stream"
import { MAX_URL_LENGTH } from "./RequestGuard.js"

/** Request line and headers together; Node refuses more before any of our code runs. */
export const MAX_HEADER_BYTES = 16 * 1024

interface ClientError extends Error {
  readonly code?: string
  readonly rawPacket?: Buffer
}

/** Did the bytes read so far overflow in the request line (a URL too long) rather than in the headers? */
const requestLineOverflowed = (raw: Buffer | undefined) => {
  if (raw === undefined) return false
  const end = raw.indexOf("\r\n")
  return end === -1 || end > MAX_URL_LENGTH
}

const answerOf = (error: ClientError): { status: number; code: string; message: string } => {
  switch (error.code) {
    case "HPE_HEADER_OVERFLOW":
      return requestLineOverflowed(error.rawPacket)
        ? { status: 414, code: "URI_TOO_LONG", message: "The request target is too long" }
        : { status: 431, code: "HEADERS_TOO_LARGE", message: `Request headers exceed ${MAX_HEADER_BYTES} bytes` }
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return { status: 408, code: "REQUEST_TIMEOUT", message: "The request was not received in time" }
    default:
      return { status: 400, code: "BAD_REQUEST", message: "The request could not be parsed as HTTP" }
  }
}

/**
 * Node answers requests its parser refuses (headers or URL too large, bytes that are not HTTP) itself, with an empty
 * body. Ours are answered in the error envelope of decisions D1 with an `X-Request-Id`, like every other response.
 */
export const answerClientError = (error: ClientError, socket: Duplex) => {
  if (error.code === "ECONNRESET" || !socket.writable) {
    socket.destroy()
    return
  }
  const { code, message, status } = answerOf(error)
  const body = JSON.stringify({ errors: [{ code, message }] })
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? "Error"}\r\n` +
      "Content-Type: application/json\r\n" +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${randomUUID()}\r\n` +
      "Connection: close\r\n\r\n" +
      body
  )
}

/** The HTTP server of the API process (and of the tests' servers): Node's, with our answer to unparsable requests. */
export const makeHttpServer = (): Server => {
  const server = createServer({ maxHeaderSize: MAX_HEADER_BYTES })
  server.on("clientError", answerClientError)
  return server
}
