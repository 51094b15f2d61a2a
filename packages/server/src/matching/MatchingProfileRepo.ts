import { Availability } from "@timebank/domain"
import { Effect, Schema } from "effect"
import { DbDate, DbInt, DbNumeric, decodeFirst, decodeSingle } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"

/** A row of `matching_profiles`. */
export const MatchingProfileRow = Schema.Struct({
  skills: Schema.Array(Schema.String),
  availability: Availability,
  categories: Schema.Array(DbInt),
  max_distance_km: Schema.NullOr(DbNumeric),
  updated_at: DbDate
})
export type MatchingProfileRow = typeof MatchingProfileRow.Type

export interface MatchingProfileWrite {
  readonly skills: ReadonlyArray<string>
  readonly availability: Availability
  readonly categories: ReadonlyArray<number>
  readonly maxDistanceKm: number | null
}

const COLUMNS = "skills, availability, categories, max_distance_km, updated_at"

/** Members' matching profiles. */
export class MatchingProfileRepo extends Effect.Service<MatchingProfileRepo>()("MatchingProfileRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db

    const find = (userId: number) =>
      db.query((tenantId) =>
        sql`SELECT ${sql.literal(COLUMNS)} FROM matching_profiles
            WHERE tenant_id = ${tenantId} AND user_id = ${userId}`.pipe(decodeFirst(MatchingProfileRow))
      )

    /** Writes the whole profile (the service merged the change over the stored one). */
    const save = (userId: number, p: MatchingProfileWrite) =>
      db.query((tenantId) =>
        sql`INSERT INTO matching_profiles (tenant_id, user_id, skills, availability, categories, max_distance_km)
            VALUES (${tenantId}, ${userId}, ${JSON.stringify(p.skills)}::jsonb, ${
          JSON.stringify(p.availability)
        }::jsonb,
                    ${JSON.stringify(p.categories)}::jsonb, ${p.maxDistanceKm})
            ON CONFLICT (tenant_id, user_id) DO UPDATE SET
              skills = EXCLUDED.skills, availability = EXCLUDED.availability, categories = EXCLUDED.categories,
              max_distance_km = EXCLUDED.max_distance_km, updated_at = now()
            RETURNING ${sql.literal(COLUMNS)}`.pipe(decodeSingle(MatchingProfileRow))
      )

    const count = db.query((tenantId) =>
      sql`SELECT count(*)::int AS n FROM matching_profiles WHERE tenant_id = ${tenantId}`.pipe(
        decodeSingle(Schema.Struct({ n: DbInt })),
        Effect.map((r) => r.n)
      )
    )

    return { find, save, count } as const
  })
}) {}
