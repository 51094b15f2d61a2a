import {
  ApplicationId,
  ApplicationStatus,
  OpportunityId,
  OrganisationId,
  type ReviewDecision,
  UserId
} from "@timebank/domain"
import { Effect, Schema } from "effect"
import { DbDate, dbId, decodeFirst, decodeRows, decodeSingle } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"
import type { PageQuery } from "./VolunteeringPage.js"

/** A row of `vol_applications`: the one read shape of an application, for the member's list and the dashboard's. */
export const ApplicationRow = Schema.Struct({
  id: dbId(ApplicationId),
  opportunity_id: dbId(OpportunityId),
  organisation_id: dbId(OrganisationId),
  user_id: dbId(UserId),
  message: Schema.NullOr(Schema.String),
  status: ApplicationStatus,
  reviewed_at: Schema.NullOr(DbDate),
  created_at: DbDate
})
export type ApplicationRow = typeof ApplicationRow.Type

export const applicationRows = decodeRows(ApplicationRow)
const firstApplication = decodeFirst(ApplicationRow)
const found = decodeSingle(Schema.Struct({ found: Schema.Boolean }))

export interface ApplicationInsert {
  readonly opportunityId: number
  readonly organisationId: number
  readonly userId: number
  readonly message: string | null
}

/** Applications of members to the current tenant's opportunities. */
export class ApplicationRepo extends Effect.Service<ApplicationRepo>()("ApplicationRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db

    return {
      findById: db.findById("vol_applications", ApplicationRow),

      /** The member's application to the opportunity, if any (the unique key `(opportunity_id, user_id)`). */
      findByApplicant: (opportunityId: number, userId: number) =>
        db.query((tenantId) =>
          sql`
            SELECT * FROM vol_applications
            WHERE tenant_id = ${tenantId} AND opportunity_id = ${opportunityId} AND user_id = ${userId}`.pipe(
            firstApplication
          )
        ),

      /**
       * `none` when the member applied already: the unique index decides a race between two requests, and the
       * transaction stays usable.
       */
      insert: (row: ApplicationInsert) =>
        db.query((tenantId) =>
          sql`
            INSERT INTO vol_applications ${
            sql.insert({
              tenant_id: tenantId,
              opportunity_id: row.opportunityId,
              organisation_id: row.organisationId,
              user_id: row.userId,
              message: row.message,
              status: "pending"
            })
          }
            ON CONFLICT (opportunity_id, user_id) DO NOTHING
            RETURNING *`.pipe(firstApplication)
        ),

      /**
       * Records a decision unless the application already has it; `none` when nothing changed (same decision, or
       * no such application). One statement, so two managers deciding at once leave one consistent row.
       */
      decide: (id: number, status: ReviewDecision, reviewedBy: number) =>
        db.query((tenantId) =>
          sql`
            UPDATE vol_applications
            SET status = ${status}, reviewed_by = ${reviewedBy}, reviewed_at = now(), updated_at = now()
            WHERE tenant_id = ${tenantId} AND id = ${id} AND status <> ${status}
            RETURNING *`.pipe(firstApplication)
        ),

      /** Whether the member has an approved application to the organisation (index `vol_applications_organisation`). */
      hasApproved: (organisationId: number, userId: number) =>
        db.query((tenantId) =>
          sql`
            SELECT EXISTS (
              SELECT 1 FROM vol_applications
              WHERE tenant_id = ${tenantId} AND organisation_id = ${organisationId} AND status = 'approved'
                AND user_id = ${userId}
            ) AS found`.pipe(found, Effect.map((row) => row.found))
        ),

      /** The member's applications, newest first (index `vol_applications_user`). */
      byUser: (userId: number, page: PageQuery) =>
        db.query((tenantId) =>
          sql`
            SELECT * FROM vol_applications
            WHERE tenant_id = ${tenantId} AND user_id = ${userId}
              ${page.before === undefined ? sql`` : sql`AND id < ${page.before}`}
            ORDER BY id DESC LIMIT ${page.limit}`.pipe(applicationRows)
        )
    } as const
  })
}) {}
