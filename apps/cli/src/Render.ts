import {
  AlreadyExists,
  AlreadyRevoked,
  type ErrorEntry,
  FederationStateConflict,
  NotFound,
  type Tenant,
  TenantDetails,
  ValidationFailed
} from "@timebank/domain"
import { toDetails } from "@timebank/server"
import { Schema } from "effect"
import type { CommandError } from "./Command.js"

/** A tenant as `--json` prints it: the super-admin API's shape, features and settings with defaults applied. */
export const tenantJson = (t: Tenant) => Schema.encodeSync(TenantDetails)(toDetails(t))

export const tenantLine = (t: Tenant) => `tenant ${t.id} "${t.slug}" (${t.name}, ${t.status})`

export const tenantTable = (tenants: ReadonlyArray<Tenant>) =>
  table(
    ["ID", "SLUG", "NAME", "STATUS", "DOMAIN", "TIMEZONE"],
    tenants.map((t) => [String(t.id), t.slug, t.name, t.status, t.domain ?? "-", t.timezone])
  )

export const table = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>) => {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)))
  return [header, ...rows].map((row) => row.map((cell, i) => cell.padEnd(widths[i]!)).join("  ").trimEnd()).join("\n")
}

/** The D1 envelope entries of a domain error: one per validation issue. */
export const errorEntries = (error: CommandError): ReadonlyArray<ErrorEntry> => {
  switch (error._tag) {
    case "ValidationFailed":
      return error.issues.map((issue) => entry(ValidationFailed.code, issue.message, issue.field))
    case "AlreadyExists":
      return [entry(AlreadyExists.code, error.message, error.field)]
    case "NotFound":
      return [entry(NotFound.code, error.message, error.field)]
    case "AlreadyRevoked":
      return [entry(AlreadyRevoked.code, error.message, error.field)]
    case "FederationStateConflict":
      return [entry(FederationStateConflict.code, error.message, error.field)]
  }
}

const entry = (code: string, message: string, field: string | undefined): ErrorEntry =>
  field === undefined ? { code, message } : { code, message, field }

export const errorLine = (e: ErrorEntry) => `error: ${e.code}: ${e.message}${e.field ? ` (field ${e.field})` : ""}`

export const isCommandError = (u: unknown): u is CommandError =>
  u instanceof ValidationFailed || u instanceof AlreadyExists || u instanceof NotFound || u instanceof AlreadyRevoked ||
  u instanceof FederationStateConflict
