import {
  CurrentUser,
  type PushKind,
  type PushSubscribe,
  type PushSubscriptionId,
  type PushUnsubscribe
} from "@timebank/domain"
import { Effect, Option } from "effect"
import { PushConfig } from "./PushConfig.js"
import { PushSubscriptionRepo } from "./PushSubscriptionRepo.js"

/** The caller's push subscriptions (decisions D9, D12, D12a). */
export class PushService extends Effect.Service<PushService>()("PushService", {
  dependencies: [PushSubscriptionRepo.Default, PushConfig.Default],
  effect: Effect.gen(function*() {
    const repo = yield* PushSubscriptionRepo
    const { vapid } = yield* PushConfig

    const vapidKey = Effect.succeed({ public_key: Option.getOrNull(Option.map(vapid, (k) => k.publicKey)) })

    /** Registers it for the caller; `created` is false when the caller already had this endpoint or token. */
    const subscribe = Effect.fn("Push.subscribe")(function*(input: PushSubscribe) {
      const user = yield* CurrentUser
      // The contract guarantees one complete shape: platform and token, or endpoint and keys.
      const row = input.platform !== undefined && input.token !== undefined
        ? yield* repo.upsert(user.userId, { kind: input.platform, endpoint: input.token, p256dh: null, auth: null })
        : yield* repo.upsert(user.userId, {
          kind: "web",
          endpoint: input.endpoint ?? "",
          p256dh: input.keys?.p256dh ?? null,
          auth: input.keys?.auth ?? null
        })
      return { created: row.inserted, data: { id: row.id as PushSubscriptionId, kind: row.kind as PushKind } }
    })

    /** Another member's subscription with the same endpoint is theirs: only the caller's rows are removed. */
    const unsubscribe = Effect.fn("Push.unsubscribe")(function*(input: PushUnsubscribe) {
      const user = yield* CurrentUser
      return { removed: yield* repo.remove(user.userId, input.endpoint ?? input.token ?? "") }
    })

    const status = Effect.fn("Push.status")(function*() {
      const user = yield* CurrentUser
      const counts = yield* repo.counts(user.userId)
      return { web: counts.web, mobile: counts.mobile, vapid_configured: Option.isSome(vapid) }
    })

    return { vapidKey, subscribe, unsubscribe, status } as const
  })
}) {}
