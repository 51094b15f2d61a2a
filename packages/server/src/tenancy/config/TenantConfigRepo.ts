import { SqlClient } from "@effect/sql"
import type { ConfigArea } from "@timebank/domain"
import { Effect, Schema } from "effect"
import { decodeRows } from "../../platform/SqlRows.js"
import { dieOnSqlError } from "../../platform/TenantSql.js"

const DocumentRow = Schema.Struct({ area: Schema.String, document: Schema.Unknown })

/** The stored configuration documents: one row per tenant and area; an absent row means the area's defaults. */
export class TenantConfigRepo extends Effect.Service<TenantConfigRepo>()("TenantConfigRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return {
      /** Every stored area of one tenant, as stored (not yet validated). */
      documentsOf: (tenantId: number) =>
        sql`SELECT area, document FROM tenant_config_documents WHERE tenant_id = ${tenantId}`.pipe(
          decodeRows(DocumentRow),
          Effect.map((rows) => new Map(rows.map((r) => [r.area, r.document] as const))),
          dieOnSqlError
        ),
      store: (tenantId: number, area: ConfigArea, document: unknown, actorId: number | null) =>
        sql`
          INSERT INTO tenant_config_documents (tenant_id, area, document, updated_by)
          VALUES (${tenantId}, ${area}, ${JSON.stringify(document)}::jsonb, ${actorId})
          ON CONFLICT (tenant_id, area)
          DO UPDATE SET document = EXCLUDED.document, updated_by = EXCLUDED.updated_by, updated_at = now()`.pipe(
          Effect.asVoid,
          dieOnSqlError
        )
    } as const
  })
}) {}
