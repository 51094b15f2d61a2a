import { SqlClient } from "@effect/sql"
import type { ReportRangeParams } from "@timebank/domain"
import { Effect } from "effect"
import { randomBytes } from "node:crypto"
import { expectOk } from "../fixtures/client.js"
import type { Actor } from "../fixtures/community.js"
import { rawRequest } from "../fixtures/TestApp.js"
import type { TestUser } from "../fixtures/users.js"
import type { TestOrganisation } from "../fixtures/volunteering.js"

/** Today (`YYYY-MM-DD`) in `timeZone`, as the clock on the wall there shows it. */
export const todayIn = (timeZone: string) => new Intl.DateTimeFormat("en-CA", { timeZone }).format(new Date())

export const shiftDays = (date: string, days: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10)

/** `YYYY-MM` of the month `months` after (before, when negative) the month of `date`. */
export const monthOf = (date: string, months = 0) => {
  const d = new Date(Date.parse(`${date.slice(0, 7)}-01T00:00:00Z`))
  d.setUTCMonth(d.getUTCMonth() + months)
  return d.toISOString().slice(0, 7)
}

/** An hour log of `user` for `organisation` on `date`, straight to the database (approved unless given). */
export const hoursOn = (
  organisation: TestOrganisation,
  user: TestUser,
  hours: number,
  date: string,
  status: "pending" | "approved" | "declined" = "approved"
) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql`INSERT INTO vol_hours (tenant_id, organisation_id, user_id, date, hours, description, status)
        VALUES (${organisation.tenant.id}, ${organisation.id}, ${user.id}, ${date}::date, ${hours}, 'Helping', ${status})`
  )
    .pipe(Effect.asVoid, Effect.orDie)

/**
 * A transfer between two members written at `at` (the ledger has no way to back-date one; it only appends rows),
 * without entries: reports read the transaction row.
 */
export const exchangeAt = (
  from: TestUser,
  to: TestUser,
  at: Date,
  amount: number,
  type: "transfer" | "grant" = "transfer"
) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`INSERT INTO ledger_transactions
          (tenant_id, type, amount, sender_id, recipient_id, idempotency_key, request_hash, created_at)
        VALUES (${from.tenant.id}, ${type}, ${amount}, ${from.id}, ${to.id},
                ${`test:${randomBytes(6).toString("hex")}`}, 'test', ${at})`).pipe(Effect.asVoid, Effect.orDie)

/** Moves a user's account creation to `at` (what a member who joined long ago looks like). */
export const joinedAt = (user: TestUser, at: Date) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql`UPDATE users SET created_at = ${at} WHERE id = ${user.id}`).pipe(
    Effect.asVoid,
    Effect.orDie
  )

/** Marks a user erased (as erasure leaves the row). */
export const erase = (user: TestUser) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql`UPDATE users SET deleted_at = now() WHERE id = ${user.id}`).pipe(
    Effect.asVoid,
    Effect.orDie
  )

export const hoursReport = (who: Actor, urlParams: ReportRangeParams = {}) =>
  Effect.map(who.client.adminFunderReports.hours({ urlParams }).pipe(expectOk), (res) => res.data)

export const membersReport = (who: Actor, urlParams: ReportRangeParams = {}) =>
  Effect.map(who.client.adminFunderReports.members({ urlParams }).pipe(expectOk), (res) => res.data)

export const socialValueReport = (who: Actor, urlParams: ReportRangeParams = {}) =>
  Effect.map(who.client.adminFunderReports.socialValue({ urlParams }).pipe(expectOk), (res) => res.data)

/**
 * A raw export (the test reads the wire: status, headers, CSV text). `query` is the URL's query string without `?`.
 */
export const exportCsv = (who: { readonly headers: Record<string, string> }, type: string, query = "") =>
  rawRequest("GET", `/api/v2/admin/reports/${type}/export${query === "" ? "" : `?${query}`}`, { headers: who.headers })
