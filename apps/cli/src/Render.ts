import { type ErrorEntry, type Tenant, TenantDetails, ValidationFailed } from "@timebank/domain"
import { toDetails } from "@timebank/server"
import { Schema } from "effect"
import type { CommandError } from "./Command.js"
import { ExitCode, exitCodeOfStatus } from "./ExitCode.js"

/** A tenant as `--json` prints it: the super-admin API's shape, features and settings with defaults applied. */
export const tenantJson = (t: Tenant) => Schema.encodeSync(TenantDetails)(toDetails(t))

export const tenantLine = (t: Pick<Tenant, "id" | "slug" | "name" | "status">) =>
  `tenant ${t.id} "${t.slug}" (${t.name}, ${t.status})`

export const tenantTable = (tenants: ReadonlyArray<Tenant>) =>
  table(
    ["ID", "SLUG", "NAME", "STATUS", "DOMAIN", "TIMEZONE"],
    tenants.map((t) => [String(t.id), t.slug, t.name, t.status, t.domain ?? "-", t.timezone])
  )

export const table = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>) => {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)))
  return [header, ...rows].map((row) => row.map((cell, i) => cell.padEnd(widths[i]!)).join("  ").trimEnd()).join("\n")
}

/** `label: value` lines, the values aligned. */
export const fields = (rows: ReadonlyArray<readonly [string, string]>) => {
  const width = Math.max(...rows.map(([label]) => label.length)) + 1
  return rows.map(([label, value]) => `${`${label}:`.padEnd(width)} ${value}`).join("\n")
}

/** A domain error's class: its envelope code and HTTP status (decisions D1). */
interface ErrorClass {
  readonly code: string
  readonly status: number
}

const classOf = (error: CommandError) => error.constructor as unknown as ErrorClass

/** The D1 envelope entries of a domain error: one per validation issue. */
export const errorEntries = (error: CommandError): ReadonlyArray<ErrorEntry> =>
  error._tag === "ValidationFailed"
    ? error.issues.map((issue) => entry(ValidationFailed.code, issue.message, issue.field))
    : [entry(classOf(error).code, error.message, error.field)]

/** The exit status of a refusal: by the HTTP status the error carries. */
export const errorExitCode = (error: CommandError): ExitCode =>
  error._tag === "ValidationFailed" ? ExitCode.usage : exitCodeOfStatus(classOf(error).status)

const entry = (code: string, message: string, field: string | undefined): ErrorEntry =>
  field === undefined ? { code, message } : { code, message, field }

export const errorLine = (e: ErrorEntry) => `error: ${e.code}: ${e.message}${e.field ? ` (field ${e.field})` : ""}`

/** A domain error the operator is told about: a tagged error whose class carries an envelope code and a status. */
export const isCommandError = (u: unknown): u is CommandError => {
  if (typeof u !== "object" || u === null || !("_tag" in u)) return false
  const cls = u.constructor as Partial<ErrorClass> | undefined
  return typeof cls?.code === "string" && typeof cls.status === "number"
}
