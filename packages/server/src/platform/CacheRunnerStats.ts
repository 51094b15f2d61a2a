import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { pgArray } from "./SqlArrays.js"
import { DbInt, decodeRows, decodeSingle } from "./SqlRows.js"
import { dieOnSqlError } from "./TenantSql.js"

/** One runner's counts of one cache for one tenant. */
export interface RunnerStatsRow {
  readonly tenantId: number
  readonly cache: string
  readonly entries: number
  readonly hits: number
  readonly misses: number
}

/** How long a runner's rows count without being refreshed; a runner that stopped (or died) drops out after it. */
export const LIVE_WINDOW = "30 seconds"

/** Rows nobody refreshed for this long belong to runners long gone: deleted by any runner's heartbeat. */
const FORGOTTEN_AFTER = "1 hour"

const SumRow = Schema.Struct({ cache: Schema.String, entries: DbInt, hits: DbInt, misses: DbInt })
const CountRow = Schema.Struct({ n: DbInt })

/**
 * `cache_runner_stats`: what each runner's caches hold and did per tenant, written by that runner, read by any
 * (decisions D17 "Cache": stats and clear act on every runner). Not tenant-scoped SQL: rows carry their tenant.
 */
export class CacheRunnerStats extends Effect.Service<CacheRunnerStats>()("CacheRunnerStats", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const upsert = (runnerId: string, rows: ReadonlyArray<RunnerStatsRow>) =>
      rows.length === 0 ? Effect.void : sql`
        INSERT INTO cache_runner_stats (runner_id, tenant_id, cache, entries, hits, misses, updated_at)
        SELECT ${runnerId}, r.tenant_id, r.cache, r.entries, r.hits, r.misses, now()
        FROM unnest(${pgArray(rows.map((r) => r.tenantId))}::bigint[], ${pgArray(rows.map((r) => r.cache))}::text[],
                    ${pgArray(rows.map((r) => r.entries))}::int[], ${pgArray(rows.map((r) => r.hits))}::bigint[],
                    ${pgArray(rows.map((r) => r.misses))}::bigint[]) AS r(tenant_id, cache, entries, hits, misses)
        ON CONFLICT (runner_id, tenant_id, cache) DO UPDATE
        SET entries = EXCLUDED.entries, hits = EXCLUDED.hits, misses = EXCLUDED.misses, updated_at = now()`.pipe(
        Effect.asVoid,
        dieOnSqlError
      )

    /** Keeps this runner's rows live while nothing changes, and forgets runners long gone. */
    const heartbeat = (runnerId: string) =>
      Effect.zipRight(
        sql`UPDATE cache_runner_stats SET updated_at = now() WHERE runner_id = ${runnerId}`,
        sql`DELETE FROM cache_runner_stats WHERE updated_at < now() - ${FORGOTTEN_AFTER}::interval`
      ).pipe(Effect.asVoid, dieOnSqlError)

    const forget = (runnerId: string) =>
      sql`DELETE FROM cache_runner_stats WHERE runner_id = ${runnerId}`.pipe(Effect.asVoid, dieOnSqlError)

    /** The tenant's counts per cache summed over the other live runners. */
    const othersOf = (runnerId: string, tenantId: number) =>
      sql`
        SELECT cache, sum(entries)::bigint AS entries, sum(hits)::bigint AS hits, sum(misses)::bigint AS misses
        FROM cache_runner_stats
        WHERE tenant_id = ${tenantId} AND runner_id <> ${runnerId}
          AND updated_at > now() - ${LIVE_WINDOW}::interval
        GROUP BY cache`.pipe(decodeRows(SumRow), dieOnSqlError)

    /** How many live rows of other runners still hold entries of the tenant in these caches. */
    const othersHolding = (runnerId: string, tenantId: number, caches: ReadonlyArray<string>) =>
      sql`
        SELECT count(*)::int AS n FROM cache_runner_stats
        WHERE tenant_id = ${tenantId} AND runner_id <> ${runnerId} AND cache = ANY(${pgArray(caches)}::text[])
          AND entries > 0 AND updated_at > now() - ${LIVE_WINDOW}::interval`.pipe(
        decodeSingle(CountRow),
        Effect.map((row) => row.n),
        dieOnSqlError
      )

    return { upsert, heartbeat, forget, othersOf, othersHolding } as const
  })
}) {}
