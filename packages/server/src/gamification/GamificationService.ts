import { CurrentUser, type GamificationSummary, NotFound } from "@timebank/domain"
import { Effect, Option } from "effect"
import { MemberDirectory } from "../identity/MemberDirectory.js"
import { AwardRepo } from "./AwardRepo.js"
import { awardView } from "./GamificationViews.js"
import { progressOf } from "./Levels.js"
import { XpRepo } from "./XpRepo.js"

/**
 * Members' view of gamification (decisions D17): their own points, level and badges, and another member's of the
 * same community (another community's member is 404, as identity's profiles are).
 */
export class GamificationService extends Effect.Service<GamificationService>()("GamificationService", {
  dependencies: [MemberDirectory.Default, AwardRepo.Default, XpRepo.Default],
  effect: Effect.gen(function*() {
    const members = yield* MemberDirectory
    const awards = yield* AwardRepo
    const xp = yield* XpRepo

    const memberHere = (userId: number) =>
      Effect.flatMap(
        members.find(userId),
        Option.match({ onNone: () => Effect.fail(NotFound.of("Member")), onSome: Effect.succeed })
      )

    const badgesOf = (userId: number) => Effect.map(awards.ofMember(userId), (rows) => rows.map(awardView))

    // Badges first: an event's points and the badges they earn commit together, so points read after the badges
    // include those of every badge shown (read the other way round, a commit in between showed a badge at 0 XP).
    const summaryOf = (userId: number) =>
      Effect.map(
        Effect.all([badgesOf(userId), xp.totalOf(userId)]),
        ([badges, points]): GamificationSummary => ({ user_id: userId, xp: points, ...progressOf(points), badges })
      )

    const mine = Effect.flatMap(CurrentUser, (me) => summaryOf(me.userId)).pipe(Effect.withSpan("Gamification.me"))

    const summary = Effect.fn("Gamification.summary")(function*(userId: number) {
      yield* memberHere(userId)
      return yield* summaryOf(userId)
    })

    const badges = Effect.fn("Gamification.badges")(function*(userId: number) {
      yield* memberHere(userId)
      return yield* badgesOf(userId)
    })

    return { mine, summary, badges, memberHere, badgesOf } as const
  })
}) {}
