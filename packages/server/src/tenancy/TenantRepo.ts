import { SqlClient } from "@effect/sql"
import { Tenant, TenantId } from "@timebank/domain"
import { Effect, Option, Schema } from "effect"
import { dbId, DbInt, decodeFirst, decodeRows, decodeSingle } from "../platform/SqlRows.js"
import { dieOnSqlError } from "../platform/TenantSql.js"

/** A row of `tenants`: the Tenant's fields as stored (`settings` gets every default applied as it is decoded). */
const TenantRow = Schema.Struct({
  ...Tenant.fields,
  id: dbId(TenantId),
  created_at: Schema.DateTimeUtcFromDate,
  updated_at: Schema.DateTimeUtcFromDate
})

const firstTenant = <E, R>(rows: Effect.Effect<ReadonlyArray<unknown>, E, R>) =>
  rows.pipe(decodeFirst(TenantRow), Effect.map(Option.map((row) => Tenant.make(row))))
const allTenants = <E, R>(rows: Effect.Effect<ReadonlyArray<unknown>, E, R>) =>
  rows.pipe(decodeRows(TenantRow), Effect.map((list) => list.map((row) => Tenant.make(row))))
const count = decodeSingle(Schema.Struct({ n: DbInt }))

export interface TenantInsert {
  readonly slug: string
  readonly name: string
  readonly domain: string | null
  readonly timezone: string
  readonly features: Record<string, boolean>
  readonly settings: Record<string, unknown>
}

export type TenantPatch = Partial<
  TenantInsert & { readonly status: "active" | "suspended"; readonly modules: Record<string, boolean> }
>

/** The tenants table. It is the one table that is not tenant-scoped: it is the list of tenants itself. */
export class TenantRepo extends Effect.Service<TenantRepo>()("TenantRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    return {
      findById: (id: number) => sql`SELECT * FROM tenants WHERE id = ${id}`.pipe(firstTenant, dieOnSqlError),
      findBySlug: (slug: string) => sql`SELECT * FROM tenants WHERE slug = ${slug}`.pipe(firstTenant, dieOnSqlError),
      findByDomain: (domain: string) =>
        sql`SELECT * FROM tenants WHERE lower(domain) = lower(${domain})`.pipe(
          firstTenant,
          dieOnSqlError
        ),
      list: sql`SELECT * FROM tenants ORDER BY id`.pipe(allTenants, dieOnSqlError),
      /** One page in id order, and how many tenants there are in all. */
      page: (limit: number, offset: number) =>
        Effect.all({
          tenants: sql`SELECT * FROM tenants ORDER BY id LIMIT ${limit} OFFSET ${offset}`.pipe(allTenants),
          total: sql`SELECT count(*)::int AS n FROM tenants`.pipe(count, Effect.map((row) => row.n))
        }).pipe(dieOnSqlError),
      insert: (t: TenantInsert) =>
        sql`
          INSERT INTO tenants (slug, name, domain, timezone, features, settings)
          VALUES (${t.slug}, ${t.name}, ${t.domain}, ${t.timezone},
                  ${JSON.stringify(t.features)}::jsonb, ${JSON.stringify(t.settings)}::jsonb)
          ON CONFLICT (slug) DO NOTHING
          RETURNING *`.pipe(firstTenant, dieOnSqlError),
      update: (id: number, patch: TenantPatch) =>
        sql`
          UPDATE tenants SET
            name = coalesce(${patch.name ?? null}, name),
            domain = CASE WHEN ${patch.domain !== undefined} THEN ${patch.domain ?? null} ELSE domain END,
            status = coalesce(${patch.status ?? null}, status),
            timezone = coalesce(${patch.timezone ?? null}, timezone),
            features = features || ${JSON.stringify(patch.features ?? {})}::jsonb,
            modules = modules || ${JSON.stringify(patch.modules ?? {})}::jsonb,
            settings = settings || ${JSON.stringify(patch.settings ?? {})}::jsonb,
            updated_at = now()
          WHERE id = ${id}
          RETURNING *`.pipe(firstTenant, dieOnSqlError),
      domainTaken: (domain: string, exceptId: number | null) =>
        sql`SELECT count(*)::int AS n FROM tenants
          WHERE lower(domain) = lower(${domain}) AND id IS DISTINCT FROM ${exceptId}`.pipe(
          count,
          Effect.map((row) => row.n > 0),
          dieOnSqlError
        )
    } as const
  })
}) {}
