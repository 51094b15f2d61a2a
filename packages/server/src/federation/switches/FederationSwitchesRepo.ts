import { SqlClient } from "@effect/sql"
import { FEDERATION_TOGGLES, type FederationToggle, type FederationToggles, NO_TOGGLES } from "@timebank/domain"
import { Effect, Option, Schema } from "effect"
import { decodeFirst, decodeSingle } from "../../platform/SqlRows.js"
import { dieOnSqlError } from "../../platform/TenantSql.js"

const PlatformRow = Schema.Struct({ enabled: Schema.Boolean })
const TenantRow = Schema.Struct({
  whitelisted: Schema.Boolean,
  toggles: Schema.Record({ key: Schema.String, value: Schema.Unknown })
})

/** A community's federation switches: the super-admin's whitelist and the tenant admin's toggles. */
export interface TenantFederation {
  readonly whitelisted: boolean
  readonly toggles: FederationToggles
}

const togglesOf = (stored: Readonly<Record<string, unknown>>): FederationToggles =>
  Object.fromEntries(FEDERATION_TOGGLES.map((t) => [t, stored[t] === true])) as unknown as FederationToggles

/**
 * The federation switches as stored: the platform row and one row per community. Tenant rows are addressed by an
 * explicit id: the super-admin sets other communities' whitelist, and federation requests find their tenant from
 * the key, not from a tenant header.
 */
export class FederationSwitchesRepo extends Effect.Service<FederationSwitchesRepo>()("FederationSwitchesRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const platformEnabled = sql`SELECT enabled FROM federation_platform`.pipe(
      decodeSingle(PlatformRow),
      Effect.map((row) => row.enabled),
      dieOnSqlError
    )

    const setPlatformEnabled = (enabled: boolean) =>
      sql`UPDATE federation_platform SET enabled = ${enabled}, updated_at = now()`.pipe(Effect.asVoid, dieOnSqlError)

    const tenant = (tenantId: number) =>
      sql`SELECT whitelisted, toggles FROM federation_tenant_settings WHERE tenant_id = ${tenantId}`.pipe(
        decodeFirst(TenantRow),
        Effect.map(Option.match({
          onNone: (): TenantFederation => ({ whitelisted: false, toggles: NO_TOGGLES }),
          onSome: (row): TenantFederation => ({ whitelisted: row.whitelisted, toggles: togglesOf(row.toggles) })
        })),
        dieOnSqlError
      )

    const setWhitelisted = (tenantId: number, whitelisted: boolean) =>
      sql`
        INSERT INTO federation_tenant_settings (tenant_id, whitelisted) VALUES (${tenantId}, ${whitelisted})
        ON CONFLICT (tenant_id) DO UPDATE SET whitelisted = EXCLUDED.whitelisted, updated_at = now()`.pipe(
        Effect.asVoid,
        dieOnSqlError
      )

    /** Merges `changes` into the stored toggles (unnamed toggles keep their value). */
    const setToggles = (tenantId: number, changes: Partial<Record<FederationToggle, boolean>>) =>
      sql`
        INSERT INTO federation_tenant_settings (tenant_id, toggles) VALUES (${tenantId}, ${
        JSON.stringify(changes)
      }::jsonb)
        ON CONFLICT (tenant_id) DO UPDATE
        SET toggles = federation_tenant_settings.toggles || EXCLUDED.toggles, updated_at = now()`.pipe(
        Effect.asVoid,
        dieOnSqlError
      )

    return { platformEnabled, setPlatformEnabled, tenant, setWhitelisted, setToggles } as const
  })
}) {}
