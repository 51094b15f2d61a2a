import type { SqlError } from "@effect/sql/SqlError"
import type { Fragment } from "@effect/sql/Statement"
import {
  type CurrentTenant,
  MemberRole,
  MemberStatus,
  OrganisationId,
  OrganisationStatus,
  UserId
} from "@timebank/domain"
import { Effect, Option, Schema } from "effect"
import { definedOnly, isUniqueViolation, likePattern } from "../platform/SqlErrors.js"
import { DbDate, dbId, DbInt, decodeFirst, decodeRows, decodeSingle } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"
import { forUniqueIds, keyedById } from "./UniqueIds.js"

/** A row of `vol_organisations`: the one read shape of an organisation, whichever list or detail shows it. */
export const OrganisationRow = Schema.Struct({
  id: dbId(OrganisationId),
  user_id: dbId(UserId),
  name: Schema.String,
  slug: Schema.String,
  description: Schema.String,
  contact_email: Schema.String,
  website: Schema.NullOr(Schema.String),
  logo_url: Schema.NullOr(Schema.String),
  location: Schema.NullOr(Schema.String),
  status: OrganisationStatus,
  auto_pay_enabled: Schema.Boolean,
  created_at: DbDate,
  updated_at: DbDate
})
export type OrganisationRow = typeof OrganisationRow.Type

/** The columns the public directory shows (its hottest read): what `DirectoryOrganisation` needs, nothing more. */
export const DirectoryRow = OrganisationRow.pick(
  "id",
  "user_id",
  "name",
  "description",
  "contact_email",
  "website",
  "logo_url",
  "location",
  "created_at"
)
export type DirectoryRow = typeof DirectoryRow.Type

/** An organisation the user runs, with their role in it. */
export const ManagedOrganisationRow = Schema.Struct({ ...OrganisationRow.fields, member_role: MemberRole })
export type ManagedOrganisationRow = typeof ManagedOrganisationRow.Type

const StatusChangeRow = Schema.Struct({ ...OrganisationRow.fields, previous_status: OrganisationStatus })

/** A row of `vol_organisation_members` (org_type `volunteer` only: this module's rows). */
export const MembershipRow = Schema.Struct({
  id: DbInt,
  organisation_id: dbId(OrganisationId),
  user_id: dbId(UserId),
  role: MemberRole,
  status: MemberStatus,
  created_at: DbDate
})
export type MembershipRow = typeof MembershipRow.Type

const NameRow = Schema.Struct({ id: dbId(OrganisationId), name: Schema.String })

const organisations = decodeRows(OrganisationRow)
const firstMembership = decodeFirst(MembershipRow)
const exists = decodeFirst(Schema.Struct({ id: DbInt }))
const memberCounts = decodeRows(Schema.Struct({ organisation_id: DbInt, n: DbInt }))
const count = decodeSingle(Schema.Struct({ n: DbInt }))
const ownerRows = decodeRows(Schema.Struct({ user_id: dbId(UserId) }))

export interface OrganisationInsert {
  readonly userId: number
  readonly name: string
  readonly slug: string
  readonly description: string
  readonly contactEmail: string
  readonly website: string | null
  readonly logoUrl: string | null
  readonly location: string | null
  readonly status: OrganisationStatus
}

/** Columns an edit may set; `undefined` leaves a column as it is. */
export interface OrganisationPatch {
  readonly name?: string | undefined
  readonly description?: string | undefined
  readonly contact_email?: string | undefined
  readonly website?: string | null | undefined
  readonly logo_url?: string | null | undefined
  readonly location?: string | null | undefined
  readonly status?: OrganisationStatus | undefined
  readonly auto_pay_enabled?: boolean | undefined
}

export interface AdminOrganisationQuery {
  readonly status?: OrganisationStatus | undefined
  readonly search?: string | undefined
  readonly page: number
  readonly perPage: number
}

const ORG_TYPE = "volunteer"

/** What a write found: the row, or which unique index refused it. */
export type OrganisationWrite =
  | { readonly _tag: "Written"; readonly row: OrganisationRow }
  | { readonly _tag: "NameTaken" }
  | { readonly _tag: "SlugTaken" }
  | { readonly _tag: "NotFound" }

const constraintOf = (error: SqlError) =>
  typeof error.cause === "object" && error.cause !== null && "constraint" in error.cause
    ? String(error.cause.constraint)
    : ""

/** The unique index that refused a write, as an outcome; other SQL errors stay errors. */
const refusedBy = (error: SqlError): Effect.Effect<OrganisationWrite, SqlError> =>
  !isUniqueViolation(error)
    ? Effect.fail(error)
    : constraintOf(error) === "vol_organisations_tenant_slug"
    ? Effect.succeed({ _tag: "SlugTaken" })
    : Effect.succeed({ _tag: "NameTaken" })

const written = (rows: ReadonlyArray<OrganisationRow>): OrganisationWrite =>
  rows[0] === undefined ? { _tag: "NotFound" } : { _tag: "Written", row: rows[0] }

/** Volunteering organisations of the current tenant and their volunteer-module memberships. */
export class OrganisationRepo extends Effect.Service<OrganisationRepo>()("OrganisationRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db

    const searchCondition = (search: string | undefined) => {
      if (search === undefined || search === "") return []
      const pattern = likePattern(search)
      return [sql`(name ILIKE ${pattern} OR description ILIKE ${pattern})`]
    }

    /** One offset page of `from` (a table and its condition) in `orderBy` order, and the total, side by side. */
    const offsetPage = <A, I>(
      schema: Schema.Schema<A, I>,
      from: Fragment,
      orderBy: Fragment,
      page: number,
      perPage: number
    ) =>
      Effect.all({
        rows: sql`SELECT * FROM ${from} ORDER BY ${orderBy} LIMIT ${perPage} OFFSET ${(page - 1) * perPage}`.pipe(
          decodeRows(schema)
        ),
        total: sql`SELECT count(*)::int AS n FROM ${from}`.pipe(count, Effect.map((row) => row.n))
      }, { concurrency: 2 })

    return {
      findById: db.findById("vol_organisations", OrganisationRow),

      /** Names of organisations (any status), keyed by id, in one query for a page. */
      refs: forUniqueIds((ids) =>
        db.query((tenantId) =>
          sql`SELECT id, name FROM vol_organisations WHERE tenant_id = ${tenantId} AND id IN ${sql.in(ids)}`.pipe(
            decodeRows(NameRow),
            Effect.map(keyedById)
          )
        )
      ),

      /** Whether another organisation of the tenant has this name (case-insensitive). */
      nameTaken: (name: string, exceptId?: number) =>
        db.query((tenantId) =>
          sql`
            SELECT id FROM vol_organisations
            WHERE tenant_id = ${tenantId} AND lower(name) = lower(${name}) AND id <> ${exceptId ?? 0}
            LIMIT 1`.pipe(exists, Effect.map(Option.isSome))
        ),

      /** Inserts the organisation; the caller adds the owner membership in the same transaction. */
      insert: (row: OrganisationInsert): Effect.Effect<OrganisationWrite, never, CurrentTenant> =>
        db.query((tenantId) =>
          sql`
            INSERT INTO vol_organisations ${
            sql.insert({
              tenant_id: tenantId,
              user_id: row.userId,
              name: row.name,
              slug: row.slug,
              description: row.description,
              contact_email: row.contactEmail,
              website: row.website,
              logo_url: row.logoUrl,
              location: row.location,
              status: row.status
            })
          }
            ON CONFLICT (tenant_id, slug) DO NOTHING
            RETURNING *`.pipe(
            organisations,
            // A taken slug skips the row (and keeps the transaction usable for the next attempt).
            Effect.map((rows): OrganisationWrite => rows[0] === undefined ? { _tag: "SlugTaken" } : written(rows)),
            Effect.catchTag("SqlError", refusedBy)
          )
        ),

      /** A rename may find the name taken (another organisation, same moment). */
      update: (id: number, patch: OrganisationPatch): Effect.Effect<OrganisationWrite, never, CurrentTenant> =>
        db.query((tenantId) =>
          sql`
            UPDATE vol_organisations SET ${sql.update({ ...definedOnly(patch), updated_at: new Date() })}
            WHERE tenant_id = ${tenantId} AND id = ${id} RETURNING *`.pipe(
            organisations,
            Effect.map(written),
            Effect.catchTag("SqlError", refusedBy)
          )
        ),

      /** Every status, newest first, with the total for offset paging. */
      listAll: (q: AdminOrganisationQuery) =>
        db.query((tenantId) => {
          const conditions = [sql`tenant_id = ${tenantId}`, ...searchCondition(q.search)]
          if (q.status !== undefined) conditions.push(sql`status = ${q.status}`)
          return offsetPage(
            OrganisationRow,
            sql`vol_organisations WHERE ${sql.and(conditions)}`,
            sql`id DESC`,
            q.page,
            q.perPage
          )
        }),

      addMember: (organisationId: number, userId: number, role: MemberRole, status: MemberStatus) =>
        db.query((tenantId) =>
          sql`
            INSERT INTO vol_organisation_members ${
            sql.insert({
              tenant_id: tenantId,
              organisation_id: organisationId,
              user_id: userId,
              role,
              status,
              org_type: ORG_TYPE
            })
          }
            ON CONFLICT (organisation_id, user_id, org_type)
            DO UPDATE SET role = EXCLUDED.role, status = EXCLUDED.status, updated_at = now()
            RETURNING *`.pipe(decodeSingle(MembershipRow))
        ),

      /** The caller's membership of one organisation, if any (any status). */
      membership: (organisationId: number, userId: number) =>
        db.query((tenantId) =>
          sql`
            SELECT * FROM vol_organisation_members
            WHERE tenant_id = ${tenantId} AND organisation_id = ${organisationId} AND user_id = ${userId}
              AND org_type = ${ORG_TYPE}`.pipe(firstMembership)
        ),

      /**
       * Who owns the organisation, distinct and in id order: its creator and its members with an active `owner`
       * membership (of this module). Empty when it is not an organisation of this tenant.
       */
      ownerIds: (organisationId: number) =>
        db.query((tenantId) =>
          sql`
            SELECT user_id FROM vol_organisations WHERE tenant_id = ${tenantId} AND id = ${organisationId}
            UNION
            SELECT user_id FROM vol_organisation_members
            WHERE tenant_id = ${tenantId} AND organisation_id = ${organisationId} AND org_type = ${ORG_TYPE}
              AND role = 'owner' AND status = 'active'
            ORDER BY user_id`.pipe(ownerRows, Effect.map((rows) => rows.map((r) => r.user_id)))
        ),

      /**
       * One offset page of the organisation's members, owners first, then by when they joined, with the total;
       * index `(organisation_id, user_id, org_type)`.
       */
      membersPage: (organisationId: number, page: number, perPage: number) =>
        db.query((tenantId) =>
          offsetPage(
            MembershipRow,
            sql`vol_organisation_members
              WHERE tenant_id = ${tenantId} AND organisation_id = ${organisationId} AND org_type = ${ORG_TYPE}`,
            sql`CASE role WHEN 'owner' THEN 0 WHEN 'admin' THEN 1 ELSE 2 END, id`,
            page,
            perPage
          )
        ),

      /** Active memberships per organisation of a page, in one query; organisations without any are absent. */
      activeMemberCounts: forUniqueIds((ids) =>
        db.query((tenantId) =>
          sql`
            SELECT organisation_id, count(*)::int AS n FROM vol_organisation_members
            WHERE tenant_id = ${tenantId} AND organisation_id IN ${sql.in(ids)} AND org_type = ${ORG_TYPE}
              AND status = 'active'
            GROUP BY organisation_id`.pipe(
            memberCounts,
            Effect.map((rows): ReadonlyMap<number, number> => new Map(rows.map((r) => [r.organisation_id, r.n])))
          )
        )
      ),

      /**
       * Sets the status under a row lock and returns the row with the status it had before (none: not an
       * organisation of this tenant). Setting the status it already has changes nothing, not even `updated_at`.
       */
      setStatus: (id: number, status: OrganisationStatus) =>
        db.query((tenantId) =>
          sql`
            WITH old AS (
              SELECT id, status FROM vol_organisations WHERE tenant_id = ${tenantId} AND id = ${id} FOR UPDATE
            )
            UPDATE vol_organisations o
            SET status = ${status},
                updated_at = CASE WHEN old.status = ${status} THEN o.updated_at ELSE now() END
            FROM old WHERE o.id = old.id
            RETURNING o.*, old.status AS previous_status`.pipe(decodeFirst(StatusChangeRow))
        ),

      /**
       * Organisations the user runs: an active `owner`/`admin` membership, or created by them. Newest first, with
       * the user's role (`owner` for the creator).
       */
      managedBy: (userId: number) =>
        db.query((tenantId) =>
          sql`
            SELECT o.*, coalesce(m.role, 'owner') AS member_role
            FROM vol_organisations o
            LEFT JOIN vol_organisation_members m
              ON m.organisation_id = o.id AND m.user_id = ${userId} AND m.org_type = ${ORG_TYPE}
                 AND m.status = 'active' AND m.role IN ('owner', 'admin')
            WHERE o.tenant_id = ${tenantId} AND (o.user_id = ${userId} OR m.id IS NOT NULL)
            ORDER BY o.id DESC`.pipe(decodeRows(ManagedOrganisationRow))
        )
    } as const
  })
}) {}
