import { CurrentUser, NotFound, type UpdateMyProfile } from "@timebank/domain"
import type { NotificationPreferences } from "@timebank/domain"
import { Effect, Option } from "effect"
import { Outbox } from "../platform/Outbox.js"
import { TenantSql } from "../platform/TenantSql.js"
import { profileEvents } from "./ProfileEvents.js"
import { preferencesOf, toMyProfile, toPublicProfile, type UserRow } from "./UserRecord.js"
import { UserRepo } from "./UserRepo.js"

/** The caller's own profile and preferences, and other members' public profiles. */
export class ProfileService extends Effect.Service<ProfileService>()("ProfileService", {
  dependencies: [UserRepo.Default, Outbox.Default, TenantSql.Default],
  effect: Effect.gen(function*() {
    const users = yield* UserRepo
    const outbox = yield* Outbox
    const db = yield* TenantSql

    const found = (what: string) => (row: Option.Option<UserRow>) =>
      Option.match(row, { onNone: () => Effect.fail(NotFound.of(what)), onSome: Effect.succeed })

    /** The caller's own row; a super-admin visiting another tenant has no row there. */
    const me = Effect.flatMap(CurrentUser, (actor) => users.findById(actor.userId)).pipe(Effect.flatMap(found("User")))

    return {
      me: Effect.map(me, toMyProfile).pipe(Effect.withSpan("Profile.me")),
      /** Partners hear of changes to what they see of the member (federation events, ProfileEvents.ts). */
      updateMe: Effect.fn("Profile.updateMe")(function*(patch: UpdateMyProfile) {
        const actor = yield* CurrentUser
        return yield* db.transaction(Effect.gen(function*() {
          const before = yield* found("User")(yield* users.findById(actor.userId))
          const after = yield* found("User")(yield* users.updateProfile(actor.userId, patch))
          yield* outbox.appendAll(profileEvents(before, after, actor.userId))
          return toMyProfile(after)
        }))
      }),
      preferences: Effect.map(me, preferencesOf).pipe(Effect.withSpan("Profile.preferences")),
      updatePreferences: Effect.fn("Profile.updatePreferences")(function*(patch: Partial<NotificationPreferences>) {
        const actor = yield* CurrentUser
        return preferencesOf(yield* found("User")(yield* users.updatePreferences(actor.userId, patch)))
      }),
      /**
       * Another way in than the member's session: an unsubscribe link (decisions D12) names the member itself.
       * None when the member is gone.
       */
      updatePreferencesOf: Effect.fn("Profile.updatePreferencesOf")(function*(
        userId: number,
        patch: Partial<NotificationPreferences>
      ) {
        return Option.map(yield* users.updatePreferences(userId, patch), preferencesOf)
      }),
      publicProfile: Effect.fn("Profile.public")(function*(id: number) {
        return toPublicProfile(yield* found("User")(yield* users.findById(id)))
      })
    } as const
  })
}) {}
