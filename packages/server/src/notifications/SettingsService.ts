import { CurrentUser, MutedUser, NotFound, type NotificationSetting, ValidationFailed } from "@timebank/domain"
import { DateTime, Effect, Option } from "effect"
import { MemberDirectory } from "../identity/MemberDirectory.js"
import { UserSummaries } from "../identity/UserSummaries.js"
import { PreferencesRepo } from "./PreferencesRepo.js"

/** Digest frequencies per context and muting (decisions D12, D12a). */
export class SettingsService extends Effect.Service<SettingsService>()("SettingsService", {
  dependencies: [PreferencesRepo.Default, MemberDirectory.Default, UserSummaries.Default],
  effect: Effect.gen(function*() {
    const repo = yield* PreferencesRepo
    const members = yield* MemberDirectory
    const users = yield* UserSummaries
    const me = Effect.map(CurrentUser, (user) => user.userId)

    const settings = Effect.flatMap(me, repo.settings)

    const saveSetting = (setting: NotificationSetting) =>
      Effect.flatMap(me, (userId) => repo.saveSetting(userId, setting))

    /** Someone else of this community: another tenant's member, or nobody, is a 404. */
    const otherMember = Effect.fn("Settings.otherMember")(function*(userId: number, targetId: number) {
      if (targetId === userId) return yield* ValidationFailed.field("id", "you cannot mute yourself")
      const member = yield* members.find(targetId)
      if (Option.isNone(member)) return yield* new NotFound({ message: "Member not found" })
      return member.value.id
    })

    const mute = Effect.fn("Settings.mute")(function*(targetId: number) {
      const userId = yield* me
      const target = yield* otherMember(userId, targetId)
      yield* repo.mute(userId, target)
      return { user_id: target, muted: true }
    })

    const unmute = Effect.fn("Settings.unmute")(function*(targetId: number) {
      const userId = yield* me
      const target = yield* otherMember(userId, targetId)
      yield* repo.unmute(userId, target)
      return { user_id: target, muted: false }
    })

    const muted = Effect.fn("Settings.muted")(function*() {
      const rows = yield* repo.muted(yield* me)
      const summaries = yield* users.byIds(rows.map((row) => row.muted_user_id))
      return rows.flatMap((row) => {
        const summary = summaries.get(row.muted_user_id)
        return summary === undefined
          ? []
          : [MutedUser.make({ ...summary, muted_at: DateTime.unsafeFromDate(row.created_at) })]
      })
    })

    return { settings, saveSetting, mute, unmute, muted } as const
  })
}) {}
