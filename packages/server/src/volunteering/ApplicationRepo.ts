import type { ReviewDecision } from "@timebank/domain"
import { Effect, Option } from "effect"
import { TenantSql } from "../platform/TenantSql.js"
import type { ApplicationRow } from "./VolunteeringViews.js"

/** A full row of `vol_applications`. */
export interface ApplicationRecord extends ApplicationRow {
  readonly tenant_id: string
  readonly reviewed_by: string | null
  readonly updated_at: Date
}

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
    const first = (rows: ReadonlyArray<ApplicationRecord>) => Option.fromNullable(rows[0])

    return {
      findById: (id: number) =>
        db.query((tenantId) =>
          sql<ApplicationRecord>`SELECT * FROM vol_applications WHERE tenant_id = ${tenantId} AND id = ${id}`.pipe(
            Effect.map(first)
          )
        ),

      /** The member's application to the opportunity, if any (the unique key `(opportunity_id, user_id)`). */
      findByApplicant: (opportunityId: number, userId: number) =>
        db.query((tenantId) =>
          sql<ApplicationRecord>`
            SELECT * FROM vol_applications
            WHERE tenant_id = ${tenantId} AND opportunity_id = ${opportunityId} AND user_id = ${userId}`.pipe(
            Effect.map(first)
          )
        ),

      /**
       * `none` when the member applied already: the unique index decides a race between two requests, and the
       * transaction stays usable.
       */
      insert: (row: ApplicationInsert) =>
        db.query((tenantId) =>
          sql<ApplicationRecord>`
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
            RETURNING *`.pipe(Effect.map(first))
        ),

      /**
       * Records a decision unless the application already has it; `none` when nothing changed (same decision, or
       * no such application). One statement, so two managers deciding at once leave one consistent row.
       */
      decide: (id: number, status: ReviewDecision, reviewedBy: number) =>
        db.query((tenantId) =>
          sql<ApplicationRecord>`
            UPDATE vol_applications
            SET status = ${status}, reviewed_by = ${reviewedBy}, reviewed_at = now(), updated_at = now()
            WHERE tenant_id = ${tenantId} AND id = ${id} AND status <> ${status}
            RETURNING *`.pipe(Effect.map(first))
        ),

      /** Whether the member has an approved application to the organisation (index `vol_applications_organisation`). */
      hasApproved: (organisationId: number, userId: number) =>
        db.query((tenantId) =>
          sql<{ found: boolean }>`
            SELECT EXISTS (
              SELECT 1 FROM vol_applications
              WHERE tenant_id = ${tenantId} AND organisation_id = ${organisationId} AND status = 'approved'
                AND user_id = ${userId}
            ) AS found`.pipe(Effect.map((rows) => rows[0]?.found === true))
        ),

      /** The member's applications, newest first (index `vol_applications_user`); `limit` is page size + 1. */
      byUser: (userId: number, before: number | undefined, limit: number) =>
        db.query((tenantId) =>
          sql<ApplicationRecord>`
            SELECT * FROM vol_applications
            WHERE tenant_id = ${tenantId} AND user_id = ${userId}
              ${before === undefined ? sql`` : sql`AND id < ${before}`}
            ORDER BY id DESC LIMIT ${limit}`
        )
    } as const
  })
}) {}
