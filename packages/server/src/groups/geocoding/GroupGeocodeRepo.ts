import { GeocodeStatus, GroupId } from "@timebank/domain"
import { Effect, Schema } from "effect"
import { pgArray } from "../../platform/SqlArrays.js"
import { DbDate, dbId, DbInt, decodeFirst, decodeRows, decodeSingle } from "../../platform/SqlRows.js"
import { TenantSql } from "../../platform/TenantSql.js"

/** What geocoding reads of a live group. */
export const GeocodeTargetRow = Schema.Struct({
  id: dbId(GroupId),
  location: Schema.NullOr(Schema.String),
  latitude: Schema.NullOr(Schema.Number)
})
export type GeocodeTargetRow = typeof GeocodeTargetRow.Type

/** How a group's last geocoding ended. */
export const GeocodeStateRow = Schema.Struct({
  geocode_status: Schema.NullOr(GeocodeStatus),
  geocoded_at: Schema.NullOr(DbDate)
})
export type GeocodeStateRow = typeof GeocodeStateRow.Type

/** One answer to write: `failed` keeps the coordinates the group has; `not_found` clears them. */
export interface GeocodeAnswer {
  readonly id: number
  /** The location that was geocoded: the answer is written only while the group still has it. */
  readonly location: string
  readonly status: GeocodeStatus
  readonly latitude: number | null
  readonly longitude: number | null
}

const targets = decodeRows(GeocodeTargetRow)
const firstTarget = decodeFirst(GeocodeTargetRow)
const firstState = decodeFirst(GeocodeStateRow)
const countRow = decodeSingle(Schema.Struct({ total: DbInt }))
const writtenIds = decodeRows(Schema.Struct({ id: dbId(GroupId) }))

/** The geocoding columns of `groups` (migration 0026), for the current tenant's live groups. */
export class GroupGeocodeRepo extends Effect.Service<GroupGeocodeRepo>()("GroupGeocodeRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db

    /** Groups to geocode without a list of ids: those with a location (and, `onlyMissing`, no coordinates). */
    const selection = (tenantId: number, onlyMissing: boolean) => {
      const conditions = [sql`tenant_id = ${tenantId}`, sql`deleted_at IS NULL`, sql`location IS NOT NULL`]
      if (onlyMissing) conditions.push(sql`latitude IS NULL`)
      return sql.and(conditions)
    }

    return {
      target: (id: number) =>
        db.query((tenantId) =>
          sql`SELECT id, location, latitude FROM groups
              WHERE tenant_id = ${tenantId} AND id = ${id} AND deleted_at IS NULL`.pipe(firstTarget)
        ),

      /** The live groups of this tenant among `ids` (others' ids and deleted groups are simply absent). */
      targets: (ids: ReadonlyArray<number>) =>
        db.query((tenantId) =>
          sql`SELECT id, location, latitude FROM groups
              WHERE tenant_id = ${tenantId} AND id = ANY(${pgArray(ids)}::bigint[]) AND deleted_at IS NULL`.pipe(
            targets
          )
        ),

      /** The first `limit` groups of the selection, oldest first (index `groups_geocode_missing` for the missing). */
      selected: (onlyMissing: boolean, limit: number) =>
        db.query((tenantId) =>
          sql`SELECT id, location, latitude FROM groups WHERE ${selection(tenantId, onlyMissing)}
              ORDER BY id LIMIT ${limit}`.pipe(targets)
        ),

      countSelected: (onlyMissing: boolean) =>
        db.query((tenantId) =>
          sql`SELECT count(*) AS total FROM groups WHERE ${selection(tenantId, onlyMissing)}`.pipe(
            countRow,
            Effect.map((row) => row.total)
          )
        ),

      /**
       * Writes the answers in one statement; answers the ids written. A group whose location changed since it was
       * read (or that was deleted) is left alone. `updated_at` moves only when the coordinates change.
       */
      record: (answers: ReadonlyArray<GeocodeAnswer>) =>
        answers.length === 0
          ? Effect.succeed<ReadonlyArray<GroupId>>([])
          : db.query((tenantId) =>
            sql`
              UPDATE groups g SET
                latitude = CASE WHEN v.status = 'failed' THEN g.latitude ELSE v.latitude END,
                longitude = CASE WHEN v.status = 'failed' THEN g.longitude ELSE v.longitude END,
                geocode_status = v.status,
                geocoded_at = now(),
                updated_at = CASE
                  WHEN v.status <> 'failed' AND (g.latitude, g.longitude) IS DISTINCT FROM (v.latitude, v.longitude)
                  THEN now() ELSE g.updated_at END
              FROM unnest(
                ${pgArray(answers.map((a) => a.id))}::bigint[],
                ${pgArray(answers.map((a) => a.location))}::text[],
                ${pgArray(answers.map((a) => a.status))}::text[],
                ${pgArray(answers.map((a) => a.latitude))}::float8[],
                ${pgArray(answers.map((a) => a.longitude))}::float8[]
              ) AS v(id, location, status, latitude, longitude)
              WHERE g.tenant_id = ${tenantId} AND g.id = v.id AND g.deleted_at IS NULL AND g.location = v.location
              RETURNING g.id`.pipe(writtenIds, Effect.map((rows) => rows.map((r) => r.id)))
          ),

      state: (id: number) =>
        db.query((tenantId) =>
          sql`SELECT geocode_status, geocoded_at FROM groups
              WHERE tenant_id = ${tenantId} AND id = ${id} AND deleted_at IS NULL`.pipe(firstState)
        )
    } as const
  })
}) {}
