import { Schema } from "effect"
import { CursorParam, PerPageParam } from "../http/Cursor.js"
import { PathId, RecordId } from "../http/Ids.js"
import { UserId, UserSummary } from "../identity/index.js"

export const NotificationId = RecordId.pipe(Schema.brand("NotificationId"))
export type NotificationId = typeof NotificationId.Type

/** The spec's bell categories; a type outside them counts as `other` (decisions D9, D12). */
export const NOTIFICATION_CATEGORIES = [
  "messages",
  "connections",
  "reviews",
  "transactions",
  "social",
  "events",
  "groups",
  "listings",
  "jobs",
  "safeguarding",
  "system",
  "security",
  "ideation"
] as const
export const NotificationCategory = Schema.Literal(...NOTIFICATION_CATEGORIES)
export type NotificationCategory = typeof NotificationCategory.Type

/** A bell item (decisions D12). `body` equals `message`; `read_at` is null while unread. */
export class Notification extends Schema.Class<Notification>("Notification")({
  id: NotificationId,
  type: Schema.String,
  category: Schema.Literal(...NOTIFICATION_CATEGORIES, "other"),
  title: Schema.String,
  body: Schema.String,
  message: Schema.String,
  link: Schema.NullOr(Schema.String),
  is_read: Schema.Boolean,
  read_at: Schema.NullOr(Schema.DateTimeUtc),
  actor: Schema.NullOr(UserSummary),
  created_at: Schema.DateTimeUtc
}) {}

/** Items of the latest 200 sharing a `group_key` (`type:link`), collapsed into one (decisions D12, D12a). */
export class GroupedNotification extends Schema.Class<GroupedNotification>("GroupedNotification")({
  ...Notification.fields,
  is_grouped: Schema.Boolean,
  group_key: Schema.String,
  group_count: Schema.Int,
  actors: Schema.Array(UserSummary),
  remaining_count: Schema.Int,
  all_read: Schema.Boolean,
  latest_at: Schema.DateTimeUtc,
  notification_ids: Schema.Array(NotificationId)
}) {}

/** Unread counts per category, `other`, and their sum `total`. */
export const NotificationCounts = Schema.Struct({
  total: Schema.Int,
  ...Object.fromEntries(NOTIFICATION_CATEGORIES.map((c) => [c, Schema.Int])) as {
    readonly [K in NotificationCategory]: typeof Schema.Int
  },
  other: Schema.Int
})
export type NotificationCounts = typeof NotificationCounts.Type

export const NotificationIdPath = Schema.Struct({ id: PathId(NotificationId) })

const BooleanFlag = Schema.Literal("true", "false", "1", "0").annotations({ description: "true or false" })

export const NotificationListParams = Schema.Struct({
  type: Schema.optional(NotificationCategory.annotations({ description: "A category; its items only" })),
  unread_only: Schema.optional(BooleanFlag),
  cursor: Schema.optional(CursorParam(RecordId)),
  per_page: Schema.optional(PerPageParam(100))
})
export type NotificationListParams = typeof NotificationListParams.Type

export const isTrueFlag = (flag: string | undefined) => flag === "true" || flag === "1"

export const CategoryParams = Schema.Struct({ category: NotificationCategory })

export const GroupRead = Schema.Struct({
  group_key: Schema.Trim.pipe(Schema.minLength(1, { message: () => "must not be blank" }), Schema.maxLength(2000))
})

export const MarkedRead = Schema.Struct({ marked_read: Schema.Int })
export const DeletedOne = Schema.Struct({ id: NotificationId, deleted: Schema.Literal(true) })
export const DeletedMany = Schema.Struct({ deleted: Schema.Int })

/** Digest frequency of one context (decisions D12); `context_id` is null for `global`. */
export const NotificationFrequency = Schema.Literal("instant", "daily", "monthly", "off")
export type NotificationFrequency = typeof NotificationFrequency.Type
export const NotificationContextType = Schema.Literal("global", "group", "thread")

export const NotificationSetting = Schema.Struct({
  context_type: NotificationContextType,
  context_id: Schema.NullOr(RecordId),
  frequency: NotificationFrequency
}).pipe(
  Schema.filter((s) =>
    (s.context_type === "global") === (s.context_id === null) || {
      path: ["context_id"],
      message: s.context_type === "global" ? "must be null for global" : "is required for group and thread"
    }
  )
)
export type NotificationSetting = typeof NotificationSetting.Type

export const MuteState = Schema.Struct({ user_id: UserId, muted: Schema.Boolean })
export const MutedUser = Schema.Struct({
  ...UserSummary.fields,
  muted_at: Schema.DateTimeUtc
})
