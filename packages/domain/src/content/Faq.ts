import { Schema } from "effect"
import { CursorParam, OffsetPageParams, PerPageParam } from "../http/Cursor.js"
import { PathId, RecordId } from "../http/Ids.js"
import { TrimmedText } from "../http/Text.js"

export const FaqId = RecordId.pipe(Schema.brand("FaqId"))
export type FaqId = typeof FaqId.Type

export const FAQ_QUESTION_MAX = 500
export const FAQ_ANSWER_MAX = 10_000
export const FAQ_CATEGORY_MAX = 100
export const FAQ_POSITION_MAX = 1_000_000
/** The category of an FAQ created without one. */
export const DEFAULT_FAQ_CATEGORY = "general"

export const FaqQuestion = TrimmedText(1, FAQ_QUESTION_MAX).annotations({
  description: `1 to ${FAQ_QUESTION_MAX} characters (Unicode code points), trimmed`
})
export const FaqAnswer = TrimmedText(1, FAQ_ANSWER_MAX).annotations({
  description: `1 to ${FAQ_ANSWER_MAX} characters (Unicode code points), trimmed`
})
export const FaqCategory = TrimmedText(1, FAQ_CATEGORY_MAX).annotations({
  description: "A free label the help page groups questions by, such as `getting-started` or `Payments`"
})
export const FaqPosition = Schema.Int.pipe(Schema.between(0, FAQ_POSITION_MAX)).annotations({
  description: "Sort key: lower first; ties keep the order of creation"
})

/** A question of the help pages and its answer (decisions D17 "Help"). */
export class Faq extends Schema.Class<Faq>("Faq")({
  id: FaqId,
  question: Schema.String,
  answer: Schema.String,
  category: Schema.String,
  position: Schema.Int.annotations({ description: "Sort key: lower first, then by id" }),
  is_published: Schema.Boolean.annotations({ description: "Only published questions are on the public help page" }),
  created_at: Schema.DateTimeUtc,
  updated_at: Schema.DateTimeUtc
}) {}

const exact = <S extends Schema.Schema.All>(schema: S) => Schema.optionalWith(schema, { exact: true })

/** `POST /api/v2/admin/help/faqs`. */
export const CreateFaq = Schema.Struct({
  question: FaqQuestion,
  answer: FaqAnswer,
  category: exact(FaqCategory).annotations({ description: `Default \`${DEFAULT_FAQ_CATEGORY}\`` }),
  position: exact(FaqPosition).annotations({
    description: "Default: after every other question (one more than the highest position)"
  }),
  is_published: exact(Schema.Boolean).annotations({ description: "Default true" })
})
export type CreateFaq = typeof CreateFaq.Type

/** `PUT /api/v2/admin/help/faqs/{id}`: the fields given change, the others stay. */
export const UpdateFaq = Schema.Struct({
  question: exact(FaqQuestion),
  answer: exact(FaqAnswer),
  category: exact(FaqCategory),
  position: exact(FaqPosition),
  is_published: exact(Schema.Boolean)
})
export type UpdateFaq = typeof UpdateFaq.Type

export const FaqIdPath = Schema.Struct({ id: PathId(FaqId) })

export const FaqDeleted = Schema.Struct({ id: FaqId, deleted: Schema.Literal(true) })
export type FaqDeleted = typeof FaqDeleted.Type

/** A `true` / `false` query parameter. */
const BooleanFlag = Schema.transform(Schema.Literal("true", "false"), Schema.Boolean, {
  strict: true,
  decode: (s) => s === "true",
  encode: (b) => (b ? "true" : "false")
}).annotations({ description: "`true` or `false`" })

const SearchParam = Schema.Trim.pipe(Schema.maxLength(200))

/** `GET /api/v2/admin/help/faqs`. */
export const AdminFaqListParams = Schema.Struct({
  ...OffsetPageParams.fields,
  category: Schema.optional(FaqCategory).annotations({ description: "Only questions of this category (exact)" }),
  is_published: Schema.optional(BooleanFlag).annotations({ description: "Only published (or unpublished) ones" }),
  search: Schema.optional(SearchParam).annotations({
    description: "Part of the question or answer (case-insensitive; % and _ match themselves)"
  })
})
export type AdminFaqListParams = typeof AdminFaqListParams.Type

/** Cursor of the public help page: the last question's category, position and id. */
export const FaqCursor = Schema.Tuple(Schema.String, Schema.Int, RecordId)
export type FaqCursor = typeof FaqCursor.Type

export const PUBLIC_FAQS_PER_PAGE = 50
export const PUBLIC_FAQS_PER_PAGE_MAX = 100

/** `GET /api/v2/help/faqs`. */
export const PublicFaqParams = Schema.Struct({
  category: Schema.optional(FaqCategory).annotations({ description: "Only questions of this category (exact)" }),
  cursor: Schema.optional(CursorParam(FaqCursor)),
  per_page: Schema.optional(PerPageParam(PUBLIC_FAQS_PER_PAGE_MAX)).annotations({
    description: `Default ${PUBLIC_FAQS_PER_PAGE}`
  })
})
export type PublicFaqParams = typeof PublicFaqParams.Type
