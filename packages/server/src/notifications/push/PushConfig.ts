import { Config, Effect, Either, Encoding, Option, Redacted } from "effect"

/** VAPID keys as `web-push` wants them: base64url, the public key a 65-byte P-256 point, the private key 32 bytes. */
export interface VapidKeys {
  readonly publicKey: string
  readonly privateKey: Redacted.Redacted<string>
  readonly subject: string
}

const decodedLength = (s: string) =>
  Either.match(Encoding.decodeBase64Url(s.replace(/=+$/, "")), { onLeft: () => -1, onRight: (b) => b.length })

const vapidKeys = Config.all({
  publicKey: Config.option(Config.string("VAPID_PUBLIC_KEY")),
  privateKey: Config.option(Config.redacted("VAPID_PRIVATE_KEY")),
  subject: Config.string("VAPID_SUBJECT").pipe(Config.withDefault("mailto:no-reply@localhost"))
}).pipe(
  Config.validate({
    message: "VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY must be set together, as a pair from `push vapid-keys`",
    validation: ({ privateKey, publicKey }) =>
      Option.isSome(publicKey) === Option.isSome(privateKey) &&
      (Option.isNone(publicKey) || decodedLength(publicKey.value) === 65) &&
      (Option.isNone(privateKey) || decodedLength(Redacted.value(privateKey.value)) === 32)
  }),
  Config.validate({
    message: "VAPID_SUBJECT must be a mailto: or https: URL",
    validation: ({ subject }) => subject.startsWith("mailto:") || subject.startsWith("https://")
  }),
  Config.map(({ privateKey, publicKey, subject }): Option.Option<VapidKeys> =>
    Option.zipWith(publicKey, privateKey, (pub, priv) => ({ publicKey: pub, privateKey: priv, subject }))
  )
)

/**
 * Push configuration (README "Configuration"). Every push service's URL can be overridden so that tests (and
 * staging) talk to local fakes; `PUSH_CA_FILE` adds a PEM certificate those requests trust beside the system ones.
 */
export class PushConfig extends Effect.Service<PushConfig>()("PushConfig", {
  effect: Effect.gen(function*() {
    return {
      /** None: web push is off and skipped silently (dispatch rule 4). */
      vapid: yield* vapidKeys,
      /** Path of an FCM service-account JSON file; none: FCM is off. */
      fcmServiceAccount: yield* Config.option(Config.string("FCM_SERVICE_ACCOUNT")),
      /** Replaces the service account's `token_uri`. */
      fcmTokenUrl: yield* Config.option(Config.string("FCM_TOKEN_URL")),
      /** Base URL of FCM HTTP v1; `/v1/projects/<project_id>/messages:send` is appended. */
      fcmEndpoint: yield* Config.string("FCM_ENDPOINT").pipe(Config.withDefault("https://fcm.googleapis.com")),
      /** APNs token auth: the `.p8` key file, its key id, the team id and the app's bundle id (topic). */
      apns: yield* Config.option(Config.all({
        keyFile: Config.string("APNS_KEY_FILE"),
        keyId: Config.string("APNS_KEY_ID"),
        teamId: Config.string("APNS_TEAM_ID"),
        topic: Config.string("APNS_TOPIC")
      })),
      apnsEndpoint: yield* Config.string("APNS_ENDPOINT").pipe(Config.withDefault("https://api.push.apple.com")),
      caFile: yield* Config.option(Config.string("PUSH_CA_FILE")),
      /** One request to a push service, connection included. */
      timeout: yield* Config.duration("PUSH_TIMEOUT").pipe(Config.withDefault("10 seconds")),
      /** Requests in flight at once, per channel (web, mobile). */
      concurrency: yield* Config.integer("PUSH_CONCURRENCY").pipe(Config.withDefault(16))
    } as const
    // A push setting that does not read is a deployment error: the process does not start, and says which.
  }).pipe(Effect.orDie)
}) {}
