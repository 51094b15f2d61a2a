import type { OpportunityStatus, OrganisationStatus } from "@timebank/domain"
import { Effect, Option } from "effect"
import { likePattern } from "../platform/SqlErrors.js"
import { TenantSql } from "../platform/TenantSql.js"

/** A row of `vol_opportunities` with the name and status of its organisation (one join, no second query). */
export interface OpportunityRow {
  readonly id: string
  readonly tenant_id: string
  readonly organisation_id: string
  readonly created_by: string
  readonly title: string
  readonly description: string
  readonly location: string | null
  readonly status: OpportunityStatus
  readonly created_at: Date
  readonly updated_at: Date
  readonly organisation_name: string
  readonly organisation_status: OrganisationStatus
}

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

export interface OpenOpportunityQuery {
  /** Only opportunities older than this id (the cursor). */
  readonly before?: number | undefined
  /** Rows to fetch: one more than the page, to know whether there is more. */
  readonly limit: number
  readonly organisationId?: number | undefined
  readonly search?: string | undefined
}

/** Opportunities of the current tenant's organisations. */
export class OpportunityRepo extends Effect.Service<OpportunityRepo>()("OpportunityRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db

    /** Completes `o` (a table or CTE of opportunity rows) with its organisation's name and status. */
    const withOrganisationName = sql`
      SELECT o.*, org.name AS organisation_name, org.status AS organisation_status
      FROM o JOIN vol_organisations org ON org.id = o.organisation_id`

    const withOrganisation = (tenantId: number, id: number) =>
      sql<OpportunityRow>`
        SELECT o.*, org.name AS organisation_name, org.status AS organisation_status
        FROM vol_opportunities o JOIN vol_organisations org ON org.id = o.organisation_id
        WHERE o.tenant_id = ${tenantId} AND o.id = ${id}`.pipe(Effect.map((rows) => Option.fromNullable(rows[0])))

    return {
      /** Any status, whatever its organisation's status. */
      findById: (id: number) => db.query((tenantId) => withOrganisation(tenantId, id)),

      insert: (row: OpportunityInsert) =>
        db.query((tenantId) =>
          sql<OpportunityRow>`
            WITH o AS (
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
            ${withOrganisationName}`.pipe(Effect.map((rows) => rows[0]!))
        ),

      update: (id: number, patch: OpportunityPatch) =>
        db.query((tenantId) => {
          const changes = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined))
          return sql<OpportunityRow>`
            WITH o AS (
              UPDATE vol_opportunities SET ${sql.update({ ...changes, updated_at: new Date() })}
              WHERE tenant_id = ${tenantId} AND id = ${id} RETURNING *)
            ${withOrganisationName}`.pipe(Effect.map((rows) => Option.fromNullable(rows[0])))
        }),

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
          return sql<OpportunityRow>`
            SELECT o.*, org.name AS organisation_name, org.status AS organisation_status
            FROM vol_opportunities o JOIN vol_organisations org ON org.id = o.organisation_id
            WHERE ${sql.and(conditions)}
            ORDER BY o.id DESC LIMIT ${q.limit}`
        })
    } as const
  })
}) {}
