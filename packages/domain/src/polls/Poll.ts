import { Schema } from "effect"
import { PathId, RecordId } from "../http/Ids.js"
import { UserId } from "../identity/User.js"

export const PollId = RecordId.pipe(Schema.brand("PollId"))
export type PollId = typeof PollId.Type

export const PollOptionId = RecordId.pipe(Schema.brand("PollOptionId"))
export type PollOptionId = typeof PollOptionId.Type

export const POLL_OPTIONS_MIN = 2
export const POLL_OPTIONS_MAX = 20

export const PollQuestion = Schema.Trim.pipe(Schema.minLength(1), Schema.maxLength(500))
export const PollOptionLabel = Schema.Trim.pipe(Schema.minLength(1), Schema.maxLength(200))

/** Labels compare trimmed and case-insensitively: "Yes" and " yes" are the same answer. */
export const optionKey = (label: string) => label.trim().toLowerCase()

const distinctLabels = (labels: ReadonlyArray<string>) =>
  new Set(labels.map(optionKey)).size === labels.length || "options must be distinct"

export const PollOptionLabels = Schema.Array(PollOptionLabel).pipe(
  Schema.minItems(POLL_OPTIONS_MIN),
  Schema.maxItems(POLL_OPTIONS_MAX),
  Schema.filter(distinctLabels)
)

/** One answer of a poll with the votes it has. */
export class PollOption extends Schema.Class<PollOption>("PollOption")({
  id: PollOptionId,
  label: Schema.String,
  votes: Schema.Int
}) {}

/** A question with 2 to 20 answers; members vote once each and may change their vote (decisions D8). */
export class Poll extends Schema.Class<Poll>("Poll")({
  id: PollId,
  question: Schema.String,
  user_id: UserId.annotations({ description: "Who asked; only they may attach the poll to an event" }),
  options: Schema.Array(PollOption).annotations({ description: "In the order they were given" }),
  total_votes: Schema.Int,
  my_vote: Schema.NullOr(PollOptionId).annotations({ description: "The caller's option, null before voting" }),
  created_at: Schema.DateTimeUtc
}) {}

export const CreatePoll = Schema.Struct({
  question: PollQuestion,
  options: PollOptionLabels.annotations({
    description: `${POLL_OPTIONS_MIN} to ${POLL_OPTIONS_MAX} distinct answers, each 1 to 200 characters`
  })
})
export type CreatePoll = typeof CreatePoll.Type

export const VotePoll = Schema.Struct({
  option_id: RecordId.annotations({ description: "An option of this poll; a new vote replaces the caller's old one" })
})
export type VotePoll = typeof VotePoll.Type

export const PollIdPath = Schema.Struct({ id: PathId(PollId) })
