import { CampaignId, CriteriaEvent } from "@timebank/domain"
import { Effect, Schema } from "effect"
import { pgArray } from "../platform/SqlArrays.js"
import { DbDate, dbId, DbInt, DbNumeric, decodeFirst, decodeRows, decodeSingle } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"

export const CampaignRow = Schema.Struct({
  id: dbId(CampaignId),
  name: Schema.String,
  description: Schema.String,
  starts_at: DbDate,
  ends_at: DbDate,
  xp_multiplier: DbNumeric,
  applies_to: Schema.Array(CriteriaEvent),
  is_active: Schema.Boolean,
  created_at: DbDate,
  updated_at: DbDate
})
export type CampaignRow = typeof CampaignRow.Type

/** Every field of a campaign, as the service has checked them. */
export interface CampaignFields {
  readonly name: string
  readonly description: string
  readonly startsAt: Date
  readonly endsAt: Date
  readonly multiplier: number
  readonly appliesTo: ReadonlyArray<CriteriaEvent>
  readonly isActive: boolean
}

const COLUMNS =
  "id, name, description, starts_at, ends_at, xp_multiplier, applies_to, is_active, created_at, updated_at"
const firstCampaign = decodeFirst(CampaignRow)
const campaigns = decodeRows(CampaignRow)
const count = decodeSingle(Schema.Struct({ n: DbInt }))

/** The community's XP campaigns (`gamification_campaigns`). */
export class CampaignRepo extends Effect.Service<CampaignRepo>()("CampaignRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db
    const columns = sql.literal(COLUMNS)
    const values = (f: CampaignFields) => ({
      name: f.name,
      description: f.description,
      starts_at: f.startsAt,
      ends_at: f.endsAt,
      xp_multiplier: f.multiplier
    })

    return {
      /** A page of campaigns, latest start first, and how many there are. */
      list: (page: number, perPage: number) =>
        db.query((tenantId) =>
          Effect.all({
            rows: sql`
              SELECT ${columns} FROM gamification_campaigns WHERE tenant_id = ${tenantId}
              ORDER BY starts_at DESC, id DESC LIMIT ${perPage} OFFSET ${(page - 1) * perPage}`.pipe(campaigns),
            total: sql`SELECT count(*)::int AS n FROM gamification_campaigns WHERE tenant_id = ${tenantId}`.pipe(
              count,
              Effect.map((r) => r.n)
            )
          })
        ),

      findById: (id: number) =>
        db.query((tenantId) =>
          sql`SELECT ${columns} FROM gamification_campaigns WHERE tenant_id = ${tenantId} AND id = ${id}`.pipe(
            firstCampaign
          )
        ),

      /** The active campaigns whose window meets [`from`, `to`] (`multiplierAt` picks per moment). */
      activeBetween: (from: Date, to: Date) =>
        db.query((tenantId) =>
          sql`
            SELECT ${columns} FROM gamification_campaigns
            WHERE tenant_id = ${tenantId} AND is_active AND starts_at <= ${to} AND ends_at > ${from}`.pipe(campaigns)
        ),

      insert: (f: CampaignFields) =>
        db.query((tenantId) =>
          sql`
            INSERT INTO gamification_campaigns
              (tenant_id, name, description, starts_at, ends_at, xp_multiplier, applies_to, is_active)
            VALUES (${tenantId}, ${f.name}, ${f.description}, ${f.startsAt}, ${f.endsAt}, ${f.multiplier},
                    ${pgArray(f.appliesTo)}::text[], ${f.isActive})
            RETURNING ${columns}`.pipe(decodeSingle(CampaignRow))
        ),

      /** Writes every field; None when the campaign is gone. */
      update: (id: number, f: CampaignFields) =>
        db.query((tenantId) =>
          sql`
            UPDATE gamification_campaigns SET ${sql.update(values(f))},
              applies_to = ${pgArray(f.appliesTo)}::text[], is_active = ${f.isActive}, updated_at = now()
            WHERE tenant_id = ${tenantId} AND id = ${id}
            RETURNING ${columns}`.pipe(firstCampaign)
        ),

      remove: (id: number) =>
        db.query((tenantId) =>
          sql`DELETE FROM gamification_campaigns WHERE tenant_id = ${tenantId} AND id = ${id} RETURNING id`.pipe(
            Effect.map((rows) => rows.length > 0)
          )
        )
    } as const
  })
}) {}
