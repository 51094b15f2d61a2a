import { SqlClient } from "@effect/sql"
import { Tenant, TenantSettings } from "@timebank/domain"
import { DateTime, Effect, Option, Schema } from "effect"
import { dieOnSqlError } from "../platform/TenantSql.js"

interface TenantRow {
  readonly id: string
  readonly slug: string
  readonly name: string
  readonly domain: string | null
  readonly status: "active" | "suspended"
  readonly timezone: string
  readonly features: Record<string, boolean>
  readonly settings: Record<string, unknown>
  readonly created_at: Date
  readonly updated_at: Date
}

const decodeSettings = Schema.decodeUnknownSync(TenantSettings)

const toTenant = (row: TenantRow): Tenant =>
  Tenant.make({
    id: Number(row.id) as Tenant["id"],
    slug: row.slug,
    name: row.name,
    domain: row.domain,
    status: row.status,
    timezone: row.timezone,
    features: row.features,
    settings: decodeSettings(row.settings),
    created_at: DateTime.unsafeFromDate(row.created_at),
    updated_at: DateTime.unsafeFromDate(row.updated_at)
  })

export interface TenantInsert {
  readonly slug: string
  readonly name: string
  readonly domain: string | null
  readonly timezone: string
  readonly features: Record<string, boolean>
  readonly settings: Record<string, unknown>
}

export type TenantPatch = Partial<TenantInsert & { readonly status: "active" | "suspended" }>

/** The tenants table. It is the one table that is not tenant-scoped: it is the list of tenants itself. */
export class TenantRepo extends Effect.Service<TenantRepo>()("TenantRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const one = (rows: ReadonlyArray<TenantRow>) => Option.map(Option.fromNullable(rows[0]), toTenant)

    return {
      findById: (id: number) =>
        sql<TenantRow>`SELECT * FROM tenants WHERE id = ${id}`.pipe(Effect.map(one), dieOnSqlError),
      findBySlug: (slug: string) =>
        sql<TenantRow>`SELECT * FROM tenants WHERE slug = ${slug}`.pipe(Effect.map(one), dieOnSqlError),
      findByDomain: (domain: string) =>
        sql<TenantRow>`SELECT * FROM tenants WHERE lower(domain) = lower(${domain})`.pipe(
          Effect.map(one),
          dieOnSqlError
        ),
      list: sql<TenantRow>`SELECT * FROM tenants ORDER BY id`.pipe(
        Effect.map((rows) => rows.map(toTenant)),
        dieOnSqlError
      ),
      /** One page in id order, and how many tenants there are in all. */
      page: (limit: number, offset: number) =>
        Effect.all({
          tenants: sql<TenantRow>`SELECT * FROM tenants ORDER BY id LIMIT ${limit} OFFSET ${offset}`.pipe(
            Effect.map((rows) => rows.map(toTenant))
          ),
          total: sql<{ n: number }>`SELECT count(*)::int AS n FROM tenants`.pipe(Effect.map((rows) => rows[0]?.n ?? 0))
        }).pipe(dieOnSqlError),
      insert: (t: TenantInsert) =>
        sql<TenantRow>`
          INSERT INTO tenants (slug, name, domain, timezone, features, settings)
          VALUES (${t.slug}, ${t.name}, ${t.domain}, ${t.timezone},
                  ${JSON.stringify(t.features)}::jsonb, ${JSON.stringify(t.settings)}::jsonb)
          ON CONFLICT (slug) DO NOTHING
          RETURNING *`.pipe(Effect.map(one), dieOnSqlError),
      update: (id: number, patch: TenantPatch) =>
        sql<TenantRow>`
          UPDATE tenants SET
            name = coalesce(${patch.name ?? null}, name),
            domain = CASE WHEN ${patch.domain !== undefined} THEN ${patch.domain ?? null} ELSE domain END,
            status = coalesce(${patch.status ?? null}, status),
            timezone = coalesce(${patch.timezone ?? null}, timezone),
            features = features || ${JSON.stringify(patch.features ?? {})}::jsonb,
            settings = settings || ${JSON.stringify(patch.settings ?? {})}::jsonb,
            updated_at = now()
          WHERE id = ${id}
          RETURNING *`.pipe(Effect.map(one), dieOnSqlError),
      domainTaken: (domain: string, exceptId: number | null) =>
        sql<{ n: number }>`SELECT count(*)::int AS n FROM tenants
          WHERE lower(domain) = lower(${domain}) AND id IS DISTINCT FROM ${exceptId}`.pipe(
          Effect.map((rows) => (rows[0]?.n ?? 0) > 0),
          dieOnSqlError
        )
    } as const
  })
}) {}
