import type { Fragment } from "@effect/sql/Statement"
import { OpportunityId, OpportunityStatus, OrganisationId, OrganisationStatus } from "@timebank/domain"
import { Effect, Schema } from "effect"
import { definedOnly, likePattern } from "../platform/SqlErrors.js"
import { DbDate, dbId, decodeFirst, decodeRows, decodeSingle } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"
import { forUniqueIds, keyedById } from "./UniqueIds.js"
import type { PageQuery } from "./VolunteeringPage.js"

/**
 * A row of `vol_opportunities` with the name and status of its organisation (one join, no second query): the one
 * read shape of an opportunity, for the list, the detail and the answers of writes.
 */
export const OpportunityRow = Schema.Struct({
  id: dbId(OpportunityId),
  organisation_id: dbId(OrganisationId),
  title: Schema.String,
  description: Schema.String,
  location: Schema.NullOr(Schema.String),
  status: OpportunityStatus,
  created_at: DbDate,
  updated_at: DbDate,
  organisation_name: Schema.String,
  organisation_status: OrganisationStatus
})
export type OpportunityRow = typeof OpportunityRow.Type

const TitleRow = Schema.Struct({ id: dbId(OpportunityId), title: Schema.String })

const opportunities = decodeRows(OpportunityRow)
const firstOpportunity = decodeFirst(OpportunityRow)

export interface OpportunityInsert {
  readonly organisationId: number
  readonly createdBy: number
  readonly title: string
  readonly description: string
  readonly location: string | null
  readonly status: OpportunityStatus
}

/** Columns an edit may set; `undefined` leaves a column as it is. */
export interface OpportunityPatch {
  readonly title?: string | undefined
  readonly description?: string | undefined
  readonly location?: string | null | undefined
  readonly status?: OpportunityStatus | undefined
}

export interface OpenOpportunityQuery extends PageQuery {
  readonly organisationId?: number | undefined
  readonly search?: string | undefined
}

/** Opportunities of the current tenant's organisations. */
export class OpportunityRepo extends Effect.Service<OpportunityRepo>()("OpportunityRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db

    /** Opportunity rows `o` (the table, or a CTE of written rows) with their organisation's name and status. */
    const withOrganisation = (rows: Fragment) =>
      sql`
        SELECT o.*, org.name AS organisation_name, org.status AS organisation_status
        FROM ${rows} o JOIN vol_organisations org ON org.id = o.organisation_id`

    return {
      /** Any status, whatever its organisation's status. */
      findById: (id: number) =>
        db.query((tenantId) =>
          sql`${withOrganisation(sql`vol_opportunities`)} WHERE o.tenant_id = ${tenantId} AND o.id = ${id}`.pipe(
            firstOpportunity
          )
        ),

      /** Titles of opportunities (any status), keyed by id, in one query for a page. */
      refs: forUniqueIds((ids) =>
        db.query((tenantId) =>
          sql`SELECT id, title FROM vol_opportunities WHERE tenant_id = ${tenantId} AND id IN ${sql.in(ids)}`.pipe(
            decodeRows(TitleRow),
            Effect.map(keyedById)
          )
        )
      ),

      insert: (row: OpportunityInsert) =>
        db.query((tenantId) =>
          sql`
            WITH written AS (
              INSERT INTO vol_opportunities ${
            sql.insert({
              tenant_id: tenantId,
              organisation_id: row.organisationId,
              created_by: row.createdBy,
              title: row.title,
              description: row.description,
              location: row.location,
              status: row.status
            })
          } RETURNING *)
            ${withOrganisation(sql`written`)}`.pipe(decodeSingle(OpportunityRow))
        ),

      update: (id: number, patch: OpportunityPatch) =>
        db.query((tenantId) =>
          sql`
            WITH written AS (
              UPDATE vol_opportunities SET ${sql.update({ ...definedOnly(patch), updated_at: new Date() })}
              WHERE tenant_id = ${tenantId} AND id = ${id} RETURNING *)
            ${withOrganisation(sql`written`)}`.pipe(firstOpportunity)
        ),

      /**
       * Open opportunities of visible (`active`/`approved`) organisations, newest first. Served by
       * `vol_opportunities_public` (tenant, status, id DESC), or `vol_opportunities_organisation` with the filter.
       */
      listOpen: (q: OpenOpportunityQuery) =>
        db.query((tenantId) => {
          const conditions = [
            sql`o.tenant_id = ${tenantId}`,
            sql`o.status = 'open'`,
            sql`org.status IN ('active', 'approved')`
          ]
          if (q.organisationId !== undefined) conditions.push(sql`o.organisation_id = ${q.organisationId}`)
          if (q.before !== undefined) conditions.push(sql`o.id < ${q.before}`)
          if (q.search !== undefined && q.search !== "") {
            const pattern = likePattern(q.search)
            conditions.push(sql`(o.title ILIKE ${pattern} OR o.description ILIKE ${pattern})`)
          }
          return sql`
            ${withOrganisation(sql`vol_opportunities`)}
            WHERE ${sql.and(conditions)}
            ORDER BY o.id DESC LIMIT ${q.limit}`.pipe(opportunities)
        })
    } as const
  })
}) {}
