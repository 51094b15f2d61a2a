import {
  type CurrentTenant,
  type CursorMeta,
  cursorPage,
  type DirectoryOrganisation,
  encodeCursor,
  OrganisationId,
  UserId
} from "@timebank/domain"
import { Effect, Schema } from "effect"
import { ownerSummaryJoin } from "../identity/UserSummaries.js"
import { type PreparedRead, preparedRead, PreparedReads } from "../platform/PreparedReads.js"
import { likePattern } from "../platform/SqlErrors.js"
import { DbDate, dbId, DbInt, DbNumeric, decodeRows } from "../platform/SqlRows.js"
import { roundRating } from "./OrganisationAggregates.js"

/** A directory row: the organisation, its owner's summary (null when the users table has no such user) and aggregates. */
const DirectoryPageRow = Schema.Struct({
  id: dbId(OrganisationId),
  name: Schema.String,
  description: Schema.String,
  logo_url: Schema.NullOr(Schema.String),
  website: Schema.NullOr(Schema.String),
  contact_email: Schema.String,
  location: Schema.NullOr(Schema.String),
  created_at: DbDate,
  user_id: dbId(UserId),
  owner_first_name: Schema.NullOr(Schema.String),
  owner_last_name: Schema.NullOr(Schema.String),
  owner_avatar_url: Schema.NullOr(Schema.String),
  opportunity_count: DbInt,
  volunteer_count: DbInt,
  total_hours: DbNumeric,
  average_rating: Schema.NullOr(DbNumeric)
})
export type DirectoryPageRow = typeof DirectoryPageRow.Type

const pageRows = decodeRows(DirectoryPageRow)

/**
 * The page query: the visible organisations (`active`/`approved`, index `vol_organisations_directory`), newest
 * first, each with its owner and the spec's aggregates as correlated subqueries on the organisation's id (indexes
 * `vol_opportunities_organisation`, `vol_applications_organisation_status_id`, `vol_hours_organisation_status_user`,
 * `reviews_target`): ONE round trip for a page, whatever its length. `$1` is the tenant; the cursor and the search
 * pattern follow when the shape has them, the limit last.
 */
const pageText = (cursor: boolean, search: boolean) => {
  const conditions = ["tenant_id = $1", "status IN ('active', 'approved')"]
  let n = 1
  if (cursor) conditions.push(`id < $${++n}`)
  if (search) {
    const pattern = `$${++n}`
    conditions.push(`(name ILIKE ${pattern} OR description ILIKE ${pattern})`)
  }
  return `
    SELECT o.id, o.name, o.description, o.logo_url, o.website, o.contact_email, o.location, o.created_at, o.user_id,
           u.first_name AS owner_first_name, u.last_name AS owner_last_name, u.avatar_url AS owner_avatar_url,
           (SELECT count(*) FROM vol_opportunities p
             WHERE p.tenant_id = $1 AND p.organisation_id = o.id AND p.status = 'open')::int AS opportunity_count,
           (SELECT count(DISTINCT a.user_id) FROM vol_applications a
             WHERE a.tenant_id = $1 AND a.organisation_id = o.id AND a.status = 'approved')::int AS volunteer_count,
           (SELECT coalesce(sum(h.hours), 0) FROM vol_hours h
             WHERE h.tenant_id = $1 AND h.organisation_id = o.id AND h.status = 'approved') AS total_hours,
           (SELECT avg(r.rating) FROM reviews r
             WHERE r.tenant_id = $1 AND r.target_type = 'organization' AND r.target_id = o.id
               AND r.approved AND NOT r.is_hidden) AS average_rating
    FROM (
      SELECT id, user_id, name, description, logo_url, website, contact_email, location, created_at
      FROM vol_organisations WHERE ${conditions.join(" AND ")}
      ORDER BY id DESC LIMIT $${n + 1}
    ) o
    ${ownerSummaryJoin("o.user_id", "u")}
    ORDER BY o.id DESC`
}

const SHAPES: ReadonlyArray<PreparedRead> = [false, true].flatMap((cursor) =>
  [false, true].map((search) => preparedRead(pageText(cursor, search)))
)
const shapeOf = (cursor: boolean, search: boolean): PreparedRead => SHAPES[(cursor ? 2 : 0) + (search ? 1 : 0)]!

/** A directory item as it goes on the wire: the encoded form of `DirectoryOrganisation`, keys in its order. */
export type DirectoryItemJson = typeof DirectoryOrganisation.Encoded

/**
 * A row as the item's JSON. The row was decoded at the repo boundary, so every field already has the type the
 * contract gives it: the item is written once here instead of being built as a class and encoded through its
 * schema again (test/listPageJson.test.ts holds the two to the same bytes).
 */
export const directoryItemJson = (row: DirectoryPageRow): DirectoryItemJson => ({
  id: row.id,
  name: row.name,
  description: row.description,
  logo_url: row.logo_url,
  website: row.website,
  contact_email: row.contact_email,
  location: row.location,
  opportunity_count: row.opportunity_count,
  volunteer_count: row.volunteer_count,
  total_hours: row.total_hours,
  average_rating: roundRating(row.average_rating),
  created_at: row.created_at.toISOString(),
  owner: row.owner_first_name === null || row.owner_last_name === null
    ? { id: row.user_id, first_name: "Deleted", last_name: "User", avatar_url: null }
    : {
      id: row.user_id,
      first_name: row.owner_first_name,
      last_name: row.owner_last_name,
      avatar_url: row.owner_avatar_url
    }
})

export interface DirectoryPageQuery {
  readonly before?: number | undefined
  readonly search?: string | undefined
  readonly perPage: number
}

/** A directory page as it goes on the wire (`CursorPage(DirectoryOrganisation)` encoded). */
export interface DirectoryPageJson {
  readonly data: ReadonlyArray<DirectoryItemJson>
  readonly meta: CursorMeta
}

/** The public organisation directory of the current tenant, one page in one prepared statement. */
export class DirectoryPage extends Effect.Service<DirectoryPage>()("DirectoryPage", {
  dependencies: [PreparedReads.Default],
  effect: Effect.gen(function*() {
    const reads = yield* PreparedReads

    const page = (q: DirectoryPageQuery): Effect.Effect<DirectoryPageJson, never, CurrentTenant> => {
      const search = q.search === undefined || q.search === "" ? undefined : likePattern(q.search)
      const values: Array<unknown> = []
      if (q.before !== undefined) values.push(q.before)
      if (search !== undefined) values.push(search)
      values.push(q.perPage + 1)
      return reads.rows(shapeOf(q.before !== undefined, search !== undefined), values).pipe(
        pageRows,
        Effect.map((rows) => {
          const { data, meta } = cursorPage(rows, q.perPage, (last) => encodeCursor(last.id))
          return { data: data.map(directoryItemJson), meta }
        }),
        Effect.withSpan("DirectoryPage.page", { captureStackTrace: false })
      )
    }

    return { page } as const
  })
}) {}
