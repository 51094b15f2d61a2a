import {
  type AdminCampaignsParams,
  type CampaignDeleted,
  type CampaignId,
  type CreateCampaign,
  NotFound,
  offsetMeta,
  type UpdateCampaign,
  ValidationFailed
} from "@timebank/domain"
import { DateTime, Effect, Option } from "effect"
import { offsetPage } from "../platform/Paging.js"
import { requireTenantAdmin, TenantAdmin } from "../platform/Policy.js"
import { DEFAULT_ADMIN_PER_PAGE } from "./AdminGamificationService.js"
import { type CampaignFields, CampaignRepo, type CampaignRow } from "./CampaignRepo.js"
import { campaignView } from "./GamificationViews.js"

const campaignNotFound = () => NotFound.of("Campaign")

/** A campaign's window must have a length: `ends_at` after `starts_at` (422 on `ends_at` otherwise). */
const checked = (fields: CampaignFields) =>
  fields.endsAt.getTime() > fields.startsAt.getTime()
    ? Effect.succeed(fields)
    : Effect.fail(ValidationFailed.field("ends_at", "must be after starts_at"))

const distinct = <A>(values: ReadonlyArray<A>) => [...new Set(values)]

const fieldsOf = (row: CampaignRow): CampaignFields => ({
  name: row.name,
  description: row.description,
  startsAt: row.starts_at,
  endsAt: row.ends_at,
  multiplier: row.xp_multiplier,
  appliesTo: row.applies_to,
  isActive: row.is_active
})

/** Time-boxed XP campaigns (decisions D17 "Gamification"): admins create, change and delete them. */
export class CampaignsService extends Effect.Service<CampaignsService>()("CampaignsService", {
  dependencies: [CampaignRepo.Default],
  effect: Effect.gen(function*() {
    const repo = yield* CampaignRepo

    const list = Effect.fn("Campaigns.list")(function*(params: AdminCampaignsParams) {
      yield* TenantAdmin
      const { page, perPage } = offsetPage(params, DEFAULT_ADMIN_PER_PAGE)
      const { rows, total } = yield* repo.list(page, perPage)
      return { data: rows.map(campaignView), meta: offsetMeta(page, perPage, total) }
    }, requireTenantAdmin)

    const create = Effect.fn("Campaigns.create")(function*(input: CreateCampaign) {
      yield* TenantAdmin
      const fields = yield* checked({
        name: input.name,
        description: input.description ?? "",
        startsAt: DateTime.toDate(input.starts_at),
        endsAt: DateTime.toDate(input.ends_at),
        multiplier: input.xp_multiplier,
        appliesTo: distinct(input.applies_to),
        isActive: input.is_active ?? true
      })
      return campaignView(yield* repo.insert(fields))
    }, requireTenantAdmin)

    const update = Effect.fn("Campaigns.update")(function*(id: CampaignId, patch: UpdateCampaign) {
      yield* TenantAdmin
      const current = yield* Effect.flatMap(
        repo.findById(id),
        Option.match({ onNone: () => Effect.fail(campaignNotFound()), onSome: Effect.succeed })
      )
      const was = fieldsOf(current)
      const fields = yield* checked({
        name: patch.name ?? was.name,
        description: patch.description ?? was.description,
        startsAt: patch.starts_at === undefined ? was.startsAt : DateTime.toDate(patch.starts_at),
        endsAt: patch.ends_at === undefined ? was.endsAt : DateTime.toDate(patch.ends_at),
        multiplier: patch.xp_multiplier ?? was.multiplier,
        appliesTo: patch.applies_to === undefined ? was.appliesTo : distinct(patch.applies_to),
        isActive: patch.is_active ?? was.isActive
      })
      const row = yield* repo.update(id, fields)
      if (Option.isNone(row)) return yield* campaignNotFound()
      return campaignView(row.value)
    }, requireTenantAdmin)

    const remove = Effect.fn("Campaigns.delete")(function*(id: CampaignId) {
      yield* TenantAdmin
      if (!(yield* repo.remove(id))) return yield* campaignNotFound()
      return { id, deleted: true as const } satisfies CampaignDeleted
    }, requireTenantAdmin)

    return { list, create, update, remove } as const
  })
}) {}
