import { Effect, Option, Redacted } from "effect"
import webpush from "web-push"
import { PushConfig } from "./PushConfig.js"
import type { PushMessage, PushTarget } from "./PushMessage.js"
import { outcomeOf, PushRequestFailed, PushTransport, type SendOutcome } from "./PushTransport.js"

/** How long a push service keeps an undelivered message for an offline browser. */
const TTL_SECONDS = 24 * 60 * 60

/**
 * Web push (RFC 8030) with VAPID (RFC 8292) and an aes128gcm-encrypted payload (RFC 8291), built by `web-push` and
 * posted to the subscription's endpoint as given. Without VAPID keys every send is skipped (dispatch rule 4).
 */
export class WebPushSender extends Effect.Service<WebPushSender>()("WebPushSender", {
  dependencies: [PushConfig.Default, PushTransport.Default],
  effect: Effect.gen(function*() {
    const { vapid } = yield* PushConfig
    const transport = yield* PushTransport

    const send = (target: PushTarget, message: PushMessage): Effect.Effect<SendOutcome, PushRequestFailed> =>
      Option.match(vapid, {
        onNone: () => Effect.succeed("skipped" as const),
        onSome: (keys) =>
          Effect.gen(function*() {
            if (target.p256dh === null || target.auth === null) {
              return yield* new PushRequestFailed({ channel: "web", reason: "subscription without keys" })
            }
            const request = yield* Effect.try({
              try: () =>
                webpush.generateRequestDetails(
                  { endpoint: target.endpoint, keys: { p256dh: target.p256dh!, auth: target.auth! } },
                  JSON.stringify(message),
                  {
                    vapidDetails: {
                      subject: keys.subject,
                      publicKey: keys.publicKey,
                      privateKey: Redacted.value(keys.privateKey)
                    },
                    contentEncoding: "aes128gcm",
                    TTL: TTL_SECONDS
                  }
                ),
              catch: (e) => new PushRequestFailed({ channel: "web", reason: `cannot encrypt: ${String(e)}` })
            })
            const headers = Object.fromEntries(
              Object.entries(request.headers).map(([name, value]) => [name, String(value)])
            )
            const response = yield* transport.post("web", request.endpoint, headers, request.body)
            return yield* outcomeOf("web", response)
          })
      })

    return { send, configured: Option.isSome(vapid) } as const
  })
}) {}

/** A new VAPID key pair, base64url (the CLI's `push vapid-keys`). */
export const generateVapidKeys = (): { readonly publicKey: string; readonly privateKey: string } =>
  webpush.generateVAPIDKeys()
