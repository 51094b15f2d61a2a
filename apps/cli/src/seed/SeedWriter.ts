import { SqlClient, type Statement } from "@effect/sql"
import { pgArray } from "@timebank/server"
import { Effect } from "effect"

/**
 * The set-based statements of `seed data`: each writes one batch of rows (`generate_series(from, to)`) with what
 * belongs to them (an organisation's owner, opportunities, applications and approved hours; an event's RSVPs; a
 * transaction's entries and the balances they move), in one statement, so that the data is consistent after each
 * batch. Rows carry the run's tag in their e-mail, slug, name or idempotency key, so that runs never collide and
 * their rows can be counted. Seeding is the one place the CLI writes features' tables directly: it has no
 * per-row service to go through at this speed (decisions-cli).
 */

const FIRST = ["Ada", "Ben", "Cleo", "Dev", "Eli", "Fay", "Gus", "Hana", "Ian", "Jo", "Kai", "Lena", "Milo", "Nia"]
const LAST = ["Okafor", "Patel", "Quinn", "Rossi", "Smith", "Tanaka", "Umar", "Vogel", "Wong", "Young", "Zhou"]
const THEMES = ["planting trees", "sorting food", "river cleaning", "tutoring kids", "visiting elders", "repair cafe"]
const SKILLS = ["gardening", "bike repair", "tutoring", "cooking", "dog walking", "tax forms", "painting", "sewing"]
const CATEGORIES = ["Home and garden", "Learning", "Repairs", "Care", "Food", "Paperwork"]

export interface SeedRun {
  readonly tenantId: number
  /** Marks this run's rows. */
  readonly tag: string
}

type Range = readonly [number, number]

const run = <A>(effect: Effect.Effect<A, unknown, SqlClient.SqlClient>) => Effect.orDie(effect)

export const insertMembers = (r: SeedRun, passwordHash: string, [from, to]: Range) =>
  run(Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`
      INSERT INTO users (tenant_id, email, password_hash, first_name, last_name, status, is_approved, role, location,
                         bio, created_at, updated_at)
      SELECT ${r.tenantId}, 'seed-' || ${r.tag} || '-' || g || '@example.org', ${passwordHash},
             (${pgArray(FIRST)}::text[])[1 + g % ${FIRST.length}],
             (${pgArray(LAST)}::text[])[1 + (g / 7) % ${LAST.length}],
             'active', true, 'member', 'District ' || (g % 37), 'Seeded member ' || g,
             now() - (g % 365) * interval '1 day', now()
      FROM generate_series(${from}::int, ${to}::int) g`))

/** This run's members' ids, in the order they were written. */
export const memberIds = (r: SeedRun) =>
  run(Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ id: number }>`
      SELECT id::int AS id FROM users
      WHERE tenant_id = ${r.tenantId} AND email LIKE 'seed-' || ${r.tag} || '-%' ORDER BY id`)).pipe(
      Effect.map((rows) => rows.map((row) => row.id))
    )

/** Organisations (every 20th pending, every 20th suspended), each with its owner, two opportunities (one closed),
 * two approved volunteers per opportunity and their approved hours of the past year. */
export const insertOrganisations = (r: SeedRun, members: ReadonlyArray<number>, [from, to]: Range) =>
  run(Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`
      WITH o AS (
        INSERT INTO vol_organisations (tenant_id, user_id, name, slug, description, contact_email, website, location,
                                       status, created_at)
        SELECT ${r.tenantId}, (${pgArray(members)}::bigint[])[1 + (g * 7) % ${members.length}],
               'Organisation ' || ${r.tag} || ' ' || lpad(g::text, 6, '0'), 'seed-' || ${r.tag} || '-' || g,
               'Volunteers ' || (${pgArray(THEMES)}::text[])[1 + g % ${THEMES.length}] || ' in district ' || (g % 37),
               'org' || g || '.' || ${r.tag} || '@example.org',
               CASE WHEN g % 2 = 0 THEN 'https://org' || g || '.example.org' END, 'District ' || (g % 37),
               CASE WHEN g % 20 = 0 THEN 'pending' WHEN g % 20 = 10 THEN 'suspended' ELSE 'active' END,
               now() - (g % 365) * interval '1 day'
        FROM generate_series(${from}::int, ${to}::int) g
        RETURNING id, tenant_id, user_id, created_at
      ), owners AS (
        INSERT INTO vol_organisation_members (tenant_id, organisation_id, user_id, role, status)
        SELECT tenant_id, id, user_id, 'owner', 'active' FROM o
      ), opportunities AS (
        INSERT INTO vol_opportunities (tenant_id, organisation_id, created_by, title, description, status, created_at)
        SELECT o.tenant_id, o.id, o.user_id, 'Help with ' || (${
      pgArray(THEMES)
    }::text[])[1 + (o.id + k) % ${THEMES.length}],
               'Come and help.', CASE WHEN k = 2 THEN 'closed' ELSE 'open' END, o.created_at
        FROM o, generate_series(1, 2) k
        RETURNING id, tenant_id, organisation_id
      ), applications AS (
        INSERT INTO vol_applications (tenant_id, opportunity_id, organisation_id, user_id, status)
        SELECT p.tenant_id, p.id, p.organisation_id,
               (${pgArray(members)}::bigint[])[1 + (p.id * 3 + j) % ${members.length}], 'approved'
        FROM opportunities p, generate_series(1, 2) j
        ON CONFLICT DO NOTHING
        RETURNING id, tenant_id, organisation_id, opportunity_id, user_id
      )
      INSERT INTO vol_hours (tenant_id, organisation_id, opportunity_id, user_id, date, hours, description, status)
      SELECT tenant_id, organisation_id, opportunity_id, user_id, current_date - (id % 300)::int, 1 + (id % 8) * 0.25,
             'Helped', 'approved'
      FROM applications`))

/** The listing categories of the tenant (created once, kept when they exist). */
export const listingCategories = (r: SeedRun) =>
  run(Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.zipRight(
      sql`
        INSERT INTO categories (tenant_id, type, name, slug)
        SELECT ${r.tenantId}, 'listing', name, lower(replace(name, ' ', '-'))
        FROM unnest(${pgArray(CATEGORIES)}::text[]) AS name
        ON CONFLICT DO NOTHING`,
      sql<{ id: number }>`
        SELECT id::int AS id FROM categories WHERE tenant_id = ${r.tenantId} AND type = 'listing' ORDER BY id`
    ))).pipe(Effect.map((rows) => rows.map((row) => row.id)))

/** Offers and requests (every 25th pending) of the members, in the categories, over the past year. */
export const insertListings = (
  r: SeedRun,
  members: ReadonlyArray<number>,
  categories: ReadonlyArray<number>,
  [from, to]: Range
) =>
  run(Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`
      INSERT INTO listings (tenant_id, user_id, type, title, description, category_id, hours_estimate, location, status,
                            created_at, updated_at)
      SELECT ${r.tenantId}, (${pgArray(members)}::bigint[])[1 + (g * 11) % ${members.length}],
             CASE WHEN g % 2 = 0 THEN 'offer' ELSE 'request' END,
             initcap((${pgArray(SKILLS)}::text[])[1 + g % ${SKILLS.length}]) || ' ' || ${r.tag} || '-' || g,
             'Seeded listing: ' || (${
      pgArray(SKILLS)
    }::text[])[1 + g % ${SKILLS.length}] || ' in district ' || (g % 37),
             (${pgArray(categories)}::bigint[])[1 + g % ${categories.length}], 0.5 + (g % 6) * 0.5,
             CASE WHEN g % 3 = 0 THEN 'District ' || (g % 37) END,
             CASE WHEN g % 25 = 0 THEN 'pending' ELSE 'active' END, now() - (g % 365) * interval '1 day', now()
      FROM generate_series(${from}::int, ${to}::int) g`))

/** Events from 90 days ago to 180 days ahead (every 4th with 20 places), each with up to five RSVPs; at past
 * events every other one attended. */
export const insertEvents = (r: SeedRun, members: ReadonlyArray<number>, [from, to]: Range) =>
  run(Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`
      WITH e AS (
        INSERT INTO events (tenant_id, user_id, title, description, start_time, end_time, location, max_attendees,
                            created_at)
        SELECT ${r.tenantId}, (${pgArray(members)}::bigint[])[1 + (g * 13) % ${members.length}],
               initcap((${pgArray(THEMES)}::text[])[1 + g % ${THEMES.length}]) || ' ' || ${r.tag} || '-' || g,
               'Seeded event ' || g,
               date_trunc('hour', now()) + ((g % 270) - 90) * interval '1 day' + (g % 10) * interval '1 hour',
               date_trunc('hour', now()) + ((g % 270) - 90) * interval '1 day' + (g % 10 + 2) * interval '1 hour',
               'Hall ' || (g % 12), CASE WHEN g % 4 = 0 THEN 20 END, now() - interval '100 days'
        FROM generate_series(${from}::int, ${to}::int) g
        RETURNING id, tenant_id, start_time
      )
      INSERT INTO event_rsvps (tenant_id, event_id, user_id, status, checked_in_at)
      SELECT e.tenant_id, e.id, (${pgArray(members)}::bigint[])[1 + (e.id * 5 + j) % ${members.length}],
             CASE WHEN e.start_time < now() AND j % 2 = 0 THEN 'attended' ELSE 'going' END,
             CASE WHEN e.start_time < now() AND j % 2 = 0 THEN e.start_time END
      FROM e, generate_series(1, LEAST(5, ${members.length})) j
      ON CONFLICT DO NOTHING`))

/** A ledger account for every member and the tenant's treasury (kept when they exist). */
export const ledgerAccounts = (r: SeedRun, members: ReadonlyArray<number>) =>
  run(Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.zipRight(
      sql`
        INSERT INTO ledger_accounts (tenant_id, kind, owner_id)
        SELECT ${r.tenantId}, 'member', unnest(${pgArray(members)}::bigint[]) ON CONFLICT DO NOTHING`,
      sql`INSERT INTO ledger_accounts (tenant_id, kind, owner_id) VALUES (${r.tenantId}, 'treasury', NULL)
          ON CONFLICT DO NOTHING`
    )))

/**
 * Posts the entries of the transactions `moves` wrote and moves the balances by them, in the same statement: the
 * recipient's member account gains, the sender's loses, or the treasury's for a grant (no sender). One join per leg,
 * each on the owner index.
 */
const post = (sql: SqlClient.SqlClient, r: SeedRun, moves: Statement.Fragment) =>
  sql`
    WITH tx AS (${moves}), members AS (
      SELECT id, owner_id FROM ledger_accounts WHERE tenant_id = ${r.tenantId} AND kind = 'member'
    ), legs AS (
      SELECT tx.id, m.id AS account_id, tx.amount, tx.created_at FROM tx JOIN members m ON m.owner_id = tx.recipient_id
      UNION ALL
      SELECT tx.id, m.id, -tx.amount, tx.created_at FROM tx JOIN members m ON m.owner_id = tx.sender_id
      UNION ALL
      SELECT tx.id, t.id, -tx.amount, tx.created_at
      FROM tx JOIN ledger_accounts t ON t.tenant_id = ${r.tenantId} AND t.kind = 'treasury'
      WHERE tx.sender_id IS NULL
    ), entries AS (
      INSERT INTO ledger_entries (tenant_id, transaction_id, account_id, amount, created_at)
      SELECT ${r.tenantId}, id, account_id, amount, created_at FROM legs
      RETURNING account_id, amount
    )
    UPDATE ledger_accounts a SET balance = a.balance + d.delta
    FROM (SELECT account_id, sum(amount) AS delta FROM entries GROUP BY account_id) d
    WHERE a.id = d.account_id`

/** Grants of `hours` from the treasury to members `from..to` (by their place in `members`). */
export const insertGrants = (r: SeedRun, members: ReadonlyArray<number>, hours: number, [from, to]: Range) =>
  run(Effect.flatMap(SqlClient.SqlClient, (sql) =>
    post(
      sql,
      r,
      sql`
        INSERT INTO ledger_transactions (tenant_id, type, description, amount, sender_id, recipient_id,
                                         idempotency_key, request_hash, created_at)
        SELECT ${r.tenantId}, 'grant', 'Seed funding', ${hours}, NULL, (${pgArray(members)}::bigint[])[g],
               'seed-' || ${r.tag} || '-grant-' || g, 'seed', now() - interval '400 days'
        FROM generate_series(${from}::int, ${to}::int) g
        RETURNING id, sender_id, recipient_id, amount, created_at`
    )))

/**
 * Transfers between members over the past year: transfer g goes from member (g-1) mod n to another member, 0.25
 * to 2 hours, so each member sends at most ⌈count / n⌉ of them.
 */
export const insertTransfers = (r: SeedRun, members: ReadonlyArray<number>, [from, to]: Range) =>
  run(Effect.flatMap(SqlClient.SqlClient, (sql) => {
    const n = sql`${members.length}::int`
    return post(
      sql,
      r,
      sql`
        INSERT INTO ledger_transactions (tenant_id, type, description, amount, sender_id, recipient_id,
                                         idempotency_key, request_hash, created_by, created_at)
        SELECT ${r.tenantId}, 'transfer', 'Seeded exchange ' || g, 0.25 * (1 + g % 8),
               (${pgArray(members)}::bigint[])[1 + (g - 1) % ${n}],
               (${pgArray(members)}::bigint[])[1 + ((g - 1) % ${n} + 1 + ((g - 1) / ${n}) % (${n} - 1)) % ${n}],
               'seed-' || ${r.tag} || '-tx-' || g, 'seed', (${pgArray(members)}::bigint[])[1 + (g - 1) % ${n}],
               now() - ((g * 7919) % 360) * interval '1 day' - (g % 1440) * interval '1 minute'
        FROM generate_series(${from}::int, ${to}::int) g
        RETURNING id, sender_id, recipient_id, amount, created_at`
    )
  }))

/** What this run wrote, counted in the tables. */
export const countWritten = (r: SeedRun) =>
  run(Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<
      { members: number; organisations: number; listings: number; events: number; transactions: number }
    >`
      SELECT
        (SELECT count(*)::int FROM users WHERE tenant_id = ${r.tenantId} AND email LIKE 'seed-' || ${r.tag} || '-%')
          AS members,
        (SELECT count(*)::int FROM vol_organisations WHERE tenant_id = ${r.tenantId}
           AND slug LIKE 'seed-' || ${r.tag} || '-%') AS organisations,
        (SELECT count(*)::int FROM listings WHERE tenant_id = ${r.tenantId}
           AND title LIKE '% ' || ${r.tag} || '-%') AS listings,
        (SELECT count(*)::int FROM events WHERE tenant_id = ${r.tenantId} AND title LIKE '% ' || ${r.tag} || '-%')
          AS events,
        (SELECT count(*)::int FROM ledger_transactions WHERE tenant_id = ${r.tenantId}
           AND idempotency_key LIKE 'seed-' || ${r.tag} || '-tx-%') AS transactions`)).pipe(
      Effect.map((rows) => rows[0]!)
    )

/** Fresh planner statistics for the tables written, so the first queries after a large seed plan well. */
export const analyze = run(Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.forEach(
    [
      "users",
      "vol_organisations",
      "vol_opportunities",
      "vol_applications",
      "vol_hours",
      "listings",
      "events",
      "event_rsvps",
      "ledger_accounts",
      "ledger_transactions",
      "ledger_entries"
    ],
    (table) => sql`ANALYZE ${sql(table)}`,
    { discard: true }
  )))
