import type { SqlError } from "@effect/sql/SqlError"
import type { CurrentTenant, MemberRole, MemberStatus, OrganisationStatus } from "@timebank/domain"
import { Effect, Option } from "effect"
import { isUniqueViolation, likePattern } from "../platform/SqlErrors.js"
import { TenantSql } from "../platform/TenantSql.js"

/** A row of `vol_organisations`. */
export interface OrganisationRow {
  readonly id: string
  readonly tenant_id: string
  readonly user_id: string
  readonly name: string
  readonly slug: string
  readonly description: string
  readonly contact_email: string
  readonly website: string | null
  readonly logo_url: string | null
  readonly location: string | null
  readonly status: OrganisationStatus
  readonly auto_pay_enabled: boolean
  readonly created_at: Date
  readonly updated_at: Date
}

/** A row of `vol_organisation_members` (org_type `volunteer` only: this module's rows). */
export interface MembershipRow {
  readonly id: string
  readonly organisation_id: string
  readonly user_id: string
  readonly role: MemberRole
  readonly status: MemberStatus
  readonly created_at: Date
}

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

export interface DirectoryQuery {
  /** Only organisations older than this id (the cursor). */
  readonly before?: number | undefined
  /** Rows to fetch: one more than the page, to know whether there is more. */
  readonly limit: number
  readonly search?: string | undefined
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
    const first = <A>(rows: ReadonlyArray<A>) => Option.fromNullable(rows[0])

    const searchCondition = (search: string | undefined) => {
      if (search === undefined || search === "") return []
      const pattern = likePattern(search)
      return [sql`(name ILIKE ${pattern} OR description ILIKE ${pattern})`]
    }

    return {
      findById: (id: number) =>
        db.query((tenantId) =>
          sql<OrganisationRow>`SELECT * FROM vol_organisations WHERE tenant_id = ${tenantId} AND id = ${id}`.pipe(
            Effect.map(first)
          )
        ),

      /** Whether another organisation of the tenant has this name (case-insensitive). */
      nameTaken: (name: string, exceptId?: number) =>
        db.query((tenantId) =>
          sql<{ id: string }>`
            SELECT id FROM vol_organisations
            WHERE tenant_id = ${tenantId} AND lower(name) = lower(${name}) AND id <> ${exceptId ?? 0}`.pipe(
            Effect.map((rows) => rows.length > 0)
          )
        ),

      /** Inserts the organisation; the caller adds the owner membership in the same transaction. */
      insert: (row: OrganisationInsert): Effect.Effect<OrganisationWrite, never, CurrentTenant> =>
        db.query((tenantId) =>
          sql<OrganisationRow>`
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
            // A taken slug skips the row (and keeps the transaction usable for the next attempt).
            Effect.map((rows): OrganisationWrite => rows[0] === undefined ? { _tag: "SlugTaken" } : written(rows)),
            Effect.catchTag("SqlError", refusedBy)
          )
        ),

      /** A rename may find the name taken (another organisation, same moment). */
      update: (id: number, patch: OrganisationPatch): Effect.Effect<OrganisationWrite, never, CurrentTenant> =>
        db.query((tenantId) => {
          const changes = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined))
          return sql<OrganisationRow>`
            UPDATE vol_organisations SET ${sql.update({ ...changes, updated_at: new Date() })}
            WHERE tenant_id = ${tenantId} AND id = ${id} RETURNING *`.pipe(
            Effect.map(written),
            Effect.catchTag("SqlError", refusedBy)
          )
        }),

      /** Visible (`active`/`approved`) organisations, newest first (index `vol_organisations_directory`). */
      directory: (q: DirectoryQuery) =>
        db.query((tenantId) => {
          const conditions = [
            sql`tenant_id = ${tenantId}`,
            sql`status IN ('active', 'approved')`,
            ...searchCondition(q.search)
          ]
          if (q.before !== undefined) conditions.push(sql`id < ${q.before}`)
          return sql<OrganisationRow>`SELECT * FROM vol_organisations WHERE ${sql.and(conditions)}
            ORDER BY id DESC LIMIT ${q.limit}`
        }),

      /** Every status, newest first, with the total for offset paging. */
      listAll: (q: AdminOrganisationQuery) =>
        db.query((tenantId) => {
          const conditions = [sql`tenant_id = ${tenantId}`, ...searchCondition(q.search)]
          if (q.status !== undefined) conditions.push(sql`status = ${q.status}`)
          const where = sql.and(conditions)
          return Effect.all({
            rows: sql<OrganisationRow>`SELECT * FROM vol_organisations WHERE ${where}
              ORDER BY id DESC LIMIT ${q.perPage} OFFSET ${(q.page - 1) * q.perPage}`,
            total: sql<{ n: number }>`SELECT count(*)::int AS n FROM vol_organisations WHERE ${where}`.pipe(
              Effect.map((rows) => rows[0]?.n ?? 0)
            )
          }, { concurrency: 2 })
        }),

      addMember: (organisationId: number, userId: number, role: MemberRole, status: MemberStatus) =>
        db.query((tenantId) =>
          sql<MembershipRow>`
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
            RETURNING id, organisation_id, user_id, role, status, created_at`.pipe(Effect.map((rows) => rows[0]!))
        ),

      /** The caller's membership of one organisation, if any (any status). */
      membership: (organisationId: number, userId: number) =>
        db.query((tenantId) =>
          sql<MembershipRow>`
            SELECT id, organisation_id, user_id, role, status, created_at FROM vol_organisation_members
            WHERE tenant_id = ${tenantId} AND organisation_id = ${organisationId} AND user_id = ${userId}
              AND org_type = ${ORG_TYPE}`.pipe(Effect.map(first))
        ),

      /** Members of an organisation, owners first, then by when they joined. */
      members: (organisationId: number) =>
        db.query((tenantId) =>
          sql<MembershipRow>`
            SELECT id, organisation_id, user_id, role, status, created_at FROM vol_organisation_members
            WHERE tenant_id = ${tenantId} AND organisation_id = ${organisationId} AND org_type = ${ORG_TYPE}
            ORDER BY CASE role WHEN 'owner' THEN 0 WHEN 'admin' THEN 1 ELSE 2 END, id`
        ),

      /** One offset page of `members` (same order), with the total; index `(organisation_id, user_id, org_type)`. */
      membersPage: (organisationId: number, page: number, perPage: number) =>
        db.query((tenantId) => {
          const where = sql`tenant_id = ${tenantId} AND organisation_id = ${organisationId} AND org_type = ${ORG_TYPE}`
          return Effect.all({
            rows: sql<MembershipRow>`
              SELECT id, organisation_id, user_id, role, status, created_at FROM vol_organisation_members
              WHERE ${where}
              ORDER BY CASE role WHEN 'owner' THEN 0 WHEN 'admin' THEN 1 ELSE 2 END, id
              LIMIT ${perPage} OFFSET ${(page - 1) * perPage}`,
            total: sql<{ n: number }>`SELECT count(*)::int AS n FROM vol_organisation_members WHERE ${where}`.pipe(
              Effect.map((rows) => rows[0]?.n ?? 0)
            )
          }, { concurrency: 2 })
        }),

      /** Active memberships per organisation of a page, in one query; organisations without any are absent. */
      activeMemberCounts: (organisationIds: ReadonlyArray<number>) => {
        const unique = [...new Set(organisationIds)]
        if (unique.length === 0) return Effect.succeed(new Map<number, number>() as ReadonlyMap<number, number>)
        return db.query((tenantId) =>
          sql<{ organisation_id: string; n: number }>`
            SELECT organisation_id, count(*)::int AS n FROM vol_organisation_members
            WHERE tenant_id = ${tenantId} AND organisation_id IN ${sql.in(unique)} AND org_type = ${ORG_TYPE}
              AND status = 'active'
            GROUP BY organisation_id`.pipe(
            Effect.map((rows): ReadonlyMap<number, number> =>
              new Map(rows.map((r) => [Number(r.organisation_id), r.n]))
            )
          )
        )
      },

      /**
       * Sets the status under a row lock and returns the row with the status it had before (none: not an
       * organisation of this tenant). Setting the status it already has changes nothing, not even `updated_at`.
       */
      setStatus: (id: number, status: OrganisationStatus) =>
        db.query((tenantId) =>
          sql<OrganisationRow & { readonly previous_status: OrganisationStatus }>`
            WITH old AS (
              SELECT id, status FROM vol_organisations WHERE tenant_id = ${tenantId} AND id = ${id} FOR UPDATE
            )
            UPDATE vol_organisations o
            SET status = ${status},
                updated_at = CASE WHEN old.status = ${status} THEN o.updated_at ELSE now() END
            FROM old WHERE o.id = old.id
            RETURNING o.*, old.status AS previous_status`.pipe(Effect.map(first))
        ),

      /**
       * Organisations the user runs: an active `owner`/`admin` membership, or created by them. Newest first, with
       * the user's role (`owner` for the creator).
       */
      managedBy: (userId: number) =>
        db.query((tenantId) =>
          sql<OrganisationRow & { readonly member_role: MemberRole }>`
            SELECT o.*, coalesce(m.role, 'owner') AS member_role
            FROM vol_organisations o
            LEFT JOIN vol_organisation_members m
              ON m.organisation_id = o.id AND m.user_id = ${userId} AND m.org_type = ${ORG_TYPE}
                 AND m.status = 'active' AND m.role IN ('owner', 'admin')
            WHERE o.tenant_id = ${tenantId} AND (o.user_id = ${userId} OR m.id IS NOT NULL)
            ORDER BY o.id DESC`
        )
    } as const
  })
}) {}
