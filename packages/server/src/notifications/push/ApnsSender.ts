import { Clock, Duration, Effect, Option, Ref } from "effect"
import { type CryptoKey, importPKCS8, SignJWT } from "jose"
import { readFileSync } from "node:fs"
import http2 from "node:http2"
import { PushConfig } from "./PushConfig.js"
import type { PushMessage, PushTarget } from "./PushMessage.js"
import { outcomeOf, PushRequestFailed, PushTransport, type SendOutcome } from "./PushTransport.js"

/** Apple refuses provider tokens older than an hour and too frequent renewals; 40 minutes sits between. */
const TOKEN_LIFETIME = Duration.minutes(40)

export const apnsBody = (message: PushMessage) =>
  JSON.stringify({
    aps: { alert: { title: message.title, body: message.body }, sound: "default" },
    link: message.link,
    type: message.type,
    notification_id: message.notification_id
  })

/**
 * APNs with token authentication over HTTP/2: an ES256 provider JWT (jose, from the `.p8` key) reused for 40
 * minutes, one HTTP/2 session kept open and opened again when it closes or fails.
 */
export class ApnsSender extends Effect.Service<ApnsSender>()("ApnsSender", {
  dependencies: [PushConfig.Default, PushTransport.Default],
  scoped: Effect.gen(function*() {
    const config = yield* PushConfig
    const { ca, timeoutMs } = yield* PushTransport
    const setup = yield* Option.match(config.apns, {
      onNone: () => Effect.succeedNone,
      onSome: (apns) =>
        Effect.try(() => readFileSync(apns.keyFile, "utf8")).pipe(
          Effect.flatMap((pem) => Effect.tryPromise(() => importPKCS8(pem, "ES256"))),
          Effect.map((key) => Option.some({ ...apns, key })),
          Effect.orDieWith((e) => new Error(`APNS_KEY_FILE ${apns.keyFile} is not a .p8 key: ${String(e)}`))
        )
    })
    const jwt = yield* Ref.make(Option.none<{ readonly token: string; readonly until: number }>())
    let session: http2.ClientHttp2Session | undefined
    yield* Effect.addFinalizer(() => Effect.sync(() => session?.close()))

    const connect = () => {
      if (session !== undefined && !session.closed && !session.destroyed) return session
      const opened = http2.connect(config.apnsEndpoint, ca === undefined ? {} : { ca })
      const forget = () => {
        if (session === opened) session = undefined
      }
      opened.on("error", forget)
      opened.on("close", forget)
      opened.on("goaway", forget)
      // An idle session must not keep the process alive.
      opened.unref()
      session = opened
      return opened
    }

    const providerToken = (s: { keyId: string; teamId: string; key: CryptoKey }) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const current = yield* Ref.get(jwt)
        if (Option.isSome(current) && current.value.until > now) return current.value.token
        const token = yield* Effect.promise(() =>
          new SignJWT({})
            .setProtectedHeader({ alg: "ES256", kid: s.keyId })
            .setIssuer(s.teamId)
            .setIssuedAt(Math.floor(now / 1000))
            .sign(s.key)
        )
        yield* Ref.set(jwt, Option.some({ token, until: now + Duration.toMillis(TOKEN_LIFETIME) }))
        return token
      })

    const request = (path: string, headers: http2.OutgoingHttpHeaders, body: string) =>
      Effect.async<{ status: number; body: string }, PushRequestFailed>((resume) => {
        const fail = (reason: string) => resume(Effect.fail(new PushRequestFailed({ channel: "apns", reason })))
        let stream: http2.ClientHttp2Stream
        try {
          stream = connect().request({ ":method": "POST", ":path": path, ...headers })
        } catch (e) {
          return fail(String(e))
        }
        let status = 0
        const chunks: Array<Buffer> = []
        stream.setTimeout(timeoutMs, () => stream.close(http2.constants.NGHTTP2_CANCEL))
        stream.on("response", (h) => (status = Number(h[":status"] ?? 0)))
        stream.on("data", (chunk: Buffer) => chunks.push(chunk))
        stream.on("end", () => resume(Effect.succeed({ status, body: Buffer.concat(chunks).toString("utf8") })))
        stream.on("error", (e) => fail(e.message))
        stream.on("close", () => {
          if (status === 0) fail("stream closed without an answer")
        })
        stream.end(body)
        return Effect.sync(() => stream.close(http2.constants.NGHTTP2_CANCEL))
      })

    const send = (target: PushTarget, message: PushMessage): Effect.Effect<SendOutcome, PushRequestFailed> =>
      Option.match(setup, {
        onNone: () => Effect.succeed("skipped" as const),
        onSome: (s) =>
          Effect.gen(function*() {
            const token = yield* providerToken(s)
            const response = yield* request(`/3/device/${encodeURIComponent(target.endpoint)}`, {
              authorization: `bearer ${token}`,
              "apns-topic": s.topic,
              "apns-push-type": "alert",
              "apns-priority": "10",
              "content-type": "application/json"
            }, apnsBody(message))
            if (response.status === 403 && response.body.includes("ExpiredProviderToken")) {
              yield* Ref.set(jwt, Option.none())
            }
            return yield* outcomeOf("apns", response)
          })
      })

    return { send, configured: Option.isSome(setup) } as const
  })
}) {}
