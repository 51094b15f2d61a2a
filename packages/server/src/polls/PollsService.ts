import {
  type CreatePoll,
  CurrentUser,
  DomainEvents,
  NotFound,
  Poll,
  type PollId,
  PollOption,
  type PollOptionId,
  type UserId,
  ValidationFailed
} from "@timebank/domain"
import { DateTime, Effect, Option } from "effect"
import { Outbox } from "../platform/Outbox.js"
import { CommunityMember, requireCommunityMember } from "../platform/Policy.js"
import { TenantSql } from "../platform/TenantSql.js"
import { PollRepo, type PollRow } from "./PollRepo.js"

export const pollNotFound = () => NotFound.of("Poll")

/** Polls of members (decisions D8); the contract gates their routes on the `polls` feature. */
export class PollsService extends Effect.Service<PollsService>()("PollsService", {
  dependencies: [PollRepo.Default, Outbox.Default, TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const repo = yield* PollRepo
    const outbox = yield* Outbox

    const view = (row: PollRow, viewerId: number) =>
      Effect.gen(function*() {
        const { options, myVote } = yield* Effect.all({
          options: repo.options(row.id),
          myVote: repo.voteOf(row.id, viewerId)
        }, { concurrency: 2 })
        return Poll.make({
          id: row.id as PollId,
          question: row.question,
          user_id: row.user_id as UserId,
          options: options.map((o) => PollOption.make({ id: o.id as PollOptionId, label: o.label, votes: o.votes })),
          total_votes: options.reduce((sum, o) => sum + o.votes, 0),
          my_vote: Option.getOrNull(myVote) as PollOptionId | null,
          created_at: DateTime.unsafeFromDate(row.created_at)
        })
      })

    const find = (id: number) =>
      Effect.flatMap(
        repo.findById(id),
        Option.match({ onNone: () => Effect.fail(pollNotFound()), onSome: Effect.succeed })
      )

    const create = Effect.fn("Polls.create")(
      function*(input: CreatePoll) {
        const member = yield* CommunityMember
        const row = yield* db.transaction(Effect.gen(function*() {
          const row = yield* repo.insert(member.userId, input.question, input.options)
          yield* outbox.append(
            new DomainEvents.PollCreated({
              poll_id: row.id,
              user_id: member.userId,
              question: row.question,
              options: input.options
            })
          )
          return row
        }))
        return yield* view(row, member.userId)
      },
      requireCommunityMember("ask polls")
    )

    const get = Effect.fn("Polls.get")(function*(id: PollId) {
      const viewer = yield* CurrentUser
      return yield* view(yield* find(id), viewer.userId)
    })

    const vote = Effect.fn("Polls.vote")(
      function*(id: PollId, optionId: number) {
        const member = yield* CommunityMember
        const row = yield* find(id)
        const voted = yield* repo.vote(id, optionId, member.userId)
        if (!voted) return yield* ValidationFailed.field("option_id", "is not an option of this poll")
        return yield* view(row, member.userId)
      },
      requireCommunityMember("vote")
    )

    /**
     * Of `pollIds`, the ones that are not polls of this community owned by `userId` (unknown ids, other
     * tenants' polls and other members' polls alike), in the order given. Empty means the user owns them all.
     */
    const ownedBy = (pollIds: ReadonlyArray<number>, userId: number) =>
      pollIds.length === 0
        ? Effect.succeed<ReadonlyArray<number>>([])
        : Effect.map(repo.ownedIds(pollIds, userId), (owned) => pollIds.filter((id) => !owned.has(id)))

    return { create, get, vote, ownedBy } as const
  })
}) {}
