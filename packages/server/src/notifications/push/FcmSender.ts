import { Clock, Effect, Option, Ref, Schema } from "effect"
import { type CryptoKey, importPKCS8, SignJWT } from "jose"
import { readFileSync } from "node:fs"
import { PushConfig } from "./PushConfig.js"
import type { PushMessage, PushTarget } from "./PushMessage.js"
import { outcomeOf, PushRequestFailed, PushTransport, type SendOutcome } from "./PushTransport.js"

const ServiceAccount = Schema.Struct({
  project_id: Schema.String,
  client_email: Schema.String,
  private_key: Schema.String,
  token_uri: Schema.optional(Schema.String)
})

const TokenAnswer = Schema.Struct({ access_token: Schema.String, expires_in: Schema.optional(Schema.Number) })

const SCOPE = "https://www.googleapis.com/auth/firebase.messaging"
const GOOGLE_TOKEN_URL = "https://oauth2.googleapis.com/token"

/** FCM's `data` values must be strings. */
export const fcmBody = (token: string, message: PushMessage) =>
  JSON.stringify({
    message: {
      token,
      notification: { title: message.title, body: message.body },
      data: {
        title: message.title,
        body: message.body,
        link: message.link ?? "",
        type: message.type,
        notification_id: String(message.notification_id)
      }
    }
  })

/**
 * FCM HTTP v1: an OAuth access token obtained with a service-account JWT (RS256, signed with jose) and cached until
 * shortly before it expires, then one `messages:send` per device token.
 */
export class FcmSender extends Effect.Service<FcmSender>()("FcmSender", {
  dependencies: [PushConfig.Default, PushTransport.Default],
  effect: Effect.gen(function*() {
    const config = yield* PushConfig
    const transport = yield* PushTransport
    const account = yield* Option.match(config.fcmServiceAccount, {
      onNone: () => Effect.succeedNone,
      onSome: (file) =>
        Effect.try(() => JSON.parse(readFileSync(file, "utf8")) as unknown).pipe(
          Effect.flatMap(Schema.decodeUnknown(ServiceAccount)),
          Effect.flatMap((sa) =>
            Effect.map(Effect.promise(() => importPKCS8(sa.private_key, "RS256")), (key) => ({ sa, key }))
          ),
          Effect.asSome,
          Effect.orDieWith((e) =>
            new Error(`FCM_SERVICE_ACCOUNT ${file} is not a service-account key file: ${String(e)}`)
          )
        )
    })
    const cached = yield* Ref.make(Option.none<{ readonly token: string; readonly until: number }>())
    const refresh = yield* Effect.makeSemaphore(1)

    const fetchToken = (sa: typeof ServiceAccount.Type, key: CryptoKey, now: number) =>
      Effect.gen(function*() {
        const tokenUrl = Option.getOrElse(config.fcmTokenUrl, () => sa.token_uri ?? GOOGLE_TOKEN_URL)
        const assertion = yield* Effect.promise(() =>
          new SignJWT({ scope: SCOPE })
            .setProtectedHeader({ alg: "RS256", typ: "JWT" })
            .setIssuer(sa.client_email)
            .setAudience(tokenUrl)
            .setIssuedAt(Math.floor(now / 1000))
            .setExpirationTime(Math.floor(now / 1000) + 3600)
            .sign(key)
        )
        const form = new URLSearchParams({ grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer", assertion })
        const response = yield* transport.post(
          "fcm",
          tokenUrl,
          { "content-type": "application/x-www-form-urlencoded" },
          form.toString()
        )
        if (response.status !== 200) {
          return yield* new PushRequestFailed({ channel: "fcm", reason: "token refused", status: response.status })
        }
        const answer = yield* Effect.try(() => JSON.parse(response.body) as unknown).pipe(
          Effect.flatMap(Schema.decodeUnknown(TokenAnswer)),
          Effect.mapError(() => new PushRequestFailed({ channel: "fcm", reason: "token answer unreadable" }))
        )
        const until = now + Math.max(60, (answer.expires_in ?? 3600) - 60) * 1000
        yield* Ref.set(cached, Option.some({ token: answer.access_token, until }))
        return answer.access_token
      })

    const accessToken = (sa: typeof ServiceAccount.Type, key: CryptoKey) =>
      refresh.withPermits(1)(Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const current = yield* Ref.get(cached)
        return Option.isSome(current) && current.value.until > now
          ? current.value.token
          : yield* fetchToken(sa, key, now)
      }))

    const send = (target: PushTarget, message: PushMessage): Effect.Effect<SendOutcome, PushRequestFailed> =>
      Option.match(account, {
        onNone: () => Effect.succeed("skipped" as const),
        onSome: ({ key, sa }) =>
          Effect.gen(function*() {
            const token = yield* accessToken(sa, key)
            const url = `${config.fcmEndpoint.replace(/\/+$/, "")}/v1/projects/${
              encodeURIComponent(sa.project_id)
            }/messages:send`
            const response = yield* transport.post("fcm", url, {
              authorization: `Bearer ${token}`,
              "content-type": "application/json"
            }, fcmBody(target.endpoint, message))
            // A token FCM no longer accepts is fetched anew for the next send.
            if (response.status === 401) yield* Ref.set(cached, Option.none())
            return yield* outcomeOf("fcm", response)
          })
      })

    return { send, configured: Option.isSome(account) } as const
  })
}) {}
