import {
  type AdminFaqListParams,
  type CreateFaq,
  cursorPage,
  DEFAULT_FAQ_CATEGORY,
  encodeCursor,
  FAQ_POSITION_MAX,
  type FaqDeleted,
  type FaqId,
  NotFound,
  offsetMeta,
  PUBLIC_FAQS_PER_PAGE,
  type PublicFaqParams,
  type UpdateFaq
} from "@timebank/domain"
import { Effect, Option } from "effect"
import { offsetPage } from "../platform/Paging.js"
import { requireTenantAdmin, TenantAdmin } from "../platform/Policy.js"
import { FaqRepo, toFaq } from "./FaqRepo.js"

export const DEFAULT_ADMIN_FAQS_PER_PAGE = 20

const found = <A>(row: Option.Option<A>) =>
  Option.match(row, { onNone: () => Effect.fail(NotFound.of("FAQ")), onSome: Effect.succeed })

/**
 * The help page's questions (decisions D17 "Help"): admins write, order and publish them; anyone reads the
 * published ones. Positions are sort keys, not ranks: a new question without one goes last (one more than the
 * highest), and setting one moves only that question (equal positions keep the order of creation).
 */
export class HelpService extends Effect.Service<HelpService>()("HelpService", {
  dependencies: [FaqRepo.Default],
  effect: Effect.gen(function*() {
    const repo = yield* FaqRepo

    /** The public help page: published questions by category, position and id, a cursor page. */
    const publicFaqs = Effect.fn("Help.publicFaqs")(function*(params: PublicFaqParams) {
      const perPage = params.per_page ?? PUBLIC_FAQS_PER_PAGE
      const rows = yield* repo.published(params.category, params.cursor, perPage + 1)
      const page = cursorPage(rows, perPage, (last) => encodeCursor([last.category, last.position, last.id]))
      return { data: page.data.map(toFaq), meta: page.meta }
    })

    const list = Effect.fn("Help.list")(function*(params: AdminFaqListParams) {
      yield* TenantAdmin
      const { page, perPage } = offsetPage(params, DEFAULT_ADMIN_FAQS_PER_PAGE)
      const result = yield* repo.list({
        page,
        perPage,
        category: params.category,
        isPublished: params.is_published,
        search: params.search
      })
      return { data: result.rows.map(toFaq), meta: offsetMeta(page, perPage, result.total) }
    }, requireTenantAdmin)

    const create = Effect.fn("Help.create")(function*(input: CreateFaq) {
      yield* TenantAdmin
      const row = yield* repo.insert({
        question: input.question,
        answer: input.answer,
        category: input.category ?? DEFAULT_FAQ_CATEGORY,
        position: input.position,
        isPublished: input.is_published ?? true
      }, FAQ_POSITION_MAX)
      return toFaq(row)
    }, requireTenantAdmin)

    const update = Effect.fn("Help.update")(function*(id: FaqId, patch: UpdateFaq) {
      yield* TenantAdmin
      const changes = Object.values(patch).some((v) => v !== undefined)
      const row = changes ? yield* repo.update(id, patch) : yield* repo.findById(id)
      return toFaq(yield* found(row))
    }, requireTenantAdmin)

    const remove = Effect.fn("Help.delete")(function*(id: FaqId) {
      yield* TenantAdmin
      if (!(yield* repo.delete(id))) return yield* NotFound.of("FAQ")
      return { id, deleted: true } satisfies FaqDeleted
    }, requireTenantAdmin)

    return { publicFaqs, list, create, update, remove } as const
  })
}) {}
