import { type CurrentTenant, OpportunityId, OrganisationId } from "@timebank/domain"
import { Effect, Schema } from "effect"
import { dbId, decodeRows } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"

/** An open opportunity as matching weighs it: what it is about and where. */
export const OpportunityCandidate = Schema.Struct({
  id: dbId(OpportunityId),
  organisation_id: dbId(OrganisationId),
  title: Schema.String,
  description: Schema.String,
  location: Schema.NullOr(Schema.String)
})
export type OpportunityCandidate = typeof OpportunityCandidate.Type

const candidates = decodeRows(OpportunityCandidate)

/** What matching may read of volunteering (decisions D17 "Matching"): one query per read. */
export class OpportunityCandidates extends Effect.Service<OpportunityCandidates>()("OpportunityCandidates", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db

    /**
     * Open opportunities of visible organisations, newest first, at most `limit`; not those `userId` created nor
     * those of organisations `userId` runs (owner or admin): those are the member's own.
     */
    const openFor = (
      userId: number,
      limit: number
    ): Effect.Effect<ReadonlyArray<OpportunityCandidate>, never, CurrentTenant> =>
      db.query((tenantId) =>
        sql`SELECT o.id, o.organisation_id, o.title, o.description, o.location
            FROM vol_opportunities o JOIN vol_organisations org ON org.id = o.organisation_id
            WHERE o.tenant_id = ${tenantId} AND o.status = 'open' AND org.status IN ('active', 'approved')
              AND o.created_by <> ${userId}
              AND NOT EXISTS (
                SELECT 1 FROM vol_organisation_members m
                WHERE m.organisation_id = o.organisation_id AND m.user_id = ${userId}
                  AND m.role IN ('owner', 'admin') AND m.status = 'active')
            ORDER BY o.id DESC LIMIT ${limit}`.pipe(candidates)
      )

    return { openFor } as const
  })
}) {}
