import {
  type CurrentTenant,
  HoursReport,
  MembersReport,
  NotFound,
  REPORT_EXPORTS,
  ReportExportType,
  ReportRangeParams,
  SocialValueReport,
  type ValidationFailed
} from "@timebank/domain"
import {
  decodeInput,
  FunderReportsService,
  ReportExports,
  requireTenantAdmin,
  type TenantAdmin
} from "@timebank/server"
import { Effect, Record as Rec, Schema, Stream } from "effect"
import { open, rename, rm } from "node:fs/promises"
import type { AnyCommand, Command, Flags, OptionSpec, Output } from "../Command.js"
import { ExitCode } from "../ExitCode.js"
import { asOperatorIn, tenantOption } from "../Operator.js"
import { Progress } from "../Progress.js"
import { fields, table } from "../Render.js"
import { Terminal } from "../Terminal.js"

/**
 * `report …` (decisions D15, D17 "Funder reports"): the admin API's funder reports and CSV exports, through the same
 * services, as the operator. The CSV is streamed from the database cursor to stdout or a file, so a large community's
 * export never sits in memory.
 */

const rangeOptions: ReadonlyArray<OptionSpec> = [
  { name: "from", type: "string", value: "YYYY-MM-DD", description: "first day (default: 12 calendar months to --to)" },
  { name: "to", type: "string", value: "YYYY-MM-DD", description: "last day, included (default: today in its zone)" }
]

const rangeOf = (flags: Flags) =>
  decodeInput(ReportRangeParams)(Rec.filter({ from: flags["from"], to: flags["to"] }, (v) => v !== undefined))

const exportTypes = ReportExportType.literals

/** Writes `body` to `path` through a file beside it, renamed into place when complete: never a half file. */
const writeFile = (path: string, body: Stream.Stream<Uint8Array>, advance: (bytes: number) => Effect.Effect<void>) => {
  const partial = `${path}.${process.pid}.partial`
  return Effect.acquireUseRelease(
    Effect.promise(() => open(partial, "w")),
    (file) =>
      Stream.runForEach(
        body,
        (chunk) => Effect.zipRight(Effect.promise(() => file.write(chunk)), advance(chunk.length))
      ).pipe(
        Effect.zipRight(Effect.promise(() => file.close())),
        Effect.zipRight(Effect.promise(() => rename(partial, path)))
      ),
    (file, exit) =>
      exit._tag === "Success"
        ? Effect.void
        : Effect.promise(() => file.close().catch(() => {}).then(() => rm(partial, { force: true })))
  )
}

export const reportExport: Command<"services"> = {
  name: "report export",
  summary: "export a funder report as CSV (RFC 4180) to stdout or a file",
  details: `TYPE is one of: ${
    exportTypes.map((t) => `${t} (${REPORT_EXPORTS[t].columns.join(",")})`).join("; ")
  }.\nWith --out the file appears only once complete; --json then prints a summary instead of the CSV.`,
  positionals: [{ name: "TYPE", description: exportTypes.join("|") }],
  options: [
    tenantOption,
    ...rangeOptions,
    { name: "out", type: "string", value: "FILE", description: "write the CSV to FILE (default: stdout)" }
  ],
  examples: [
    "report export hours --tenant demo > hours.csv",
    "report export members --tenant 7 --from 2026-01-01 --to 2026-06-30 --out members.csv --json"
  ],
  exits: [[ExitCode.notFound, "no such tenant, or no such export TYPE"]],
  check: (flags) =>
    flags["json"] && flags["out"] === undefined ? "--json needs --out FILE (the CSV is the output)" : undefined,
  needs: "services",
  run: ([type], flags) =>
    asOperatorIn(flags)((tenant) =>
      Effect.gen(function*() {
        if (!Schema.is(ReportExportType)(type)) return yield* Effect.fail(NotFound.of("Report export"))
        const params = yield* rangeOf(flags)
        const range = yield* Effect.flatMap(FunderReportsService, (reports) => reports.rangeOf(params))
        const file = yield* Effect.flatMap(ReportExports, (exports) => exports.csv(type, params)).pipe(
          requireTenantAdmin
        )
        const out = flags["out"]
        if (typeof out !== "string") {
          yield* Stream.runForEach(file.body, (chunk) => Effect.flatMap(Terminal, (t) => t.write(chunk)))
          return { json: null }
        }
        let bytes = 0
        yield* Effect.flatMap(Progress, (progress) =>
          progress.track(`writing ${out} (bytes)`, undefined, (bar) =>
            writeFile(out, file.body, (n) => {
              bytes += n
              return bar.advance(n)
            })))
        return {
          json: { type, tenant_id: tenant.id, from: range.from, to: range.to, file: out, bytes },
          text:
            `wrote ${out}: ${type} of tenant ${tenant.id} "${tenant.slug}", ${range.from} to ${range.to}, ${bytes} bytes`
        }
      })
    )
}

const kinds = ["hours", "members", "social-value"] as const

const monthTable = (column: string, rows: ReadonlyArray<readonly [string, number]>) =>
  table(["MONTH", column], rows.map(([month, value]) => [month, String(value)]))

type Show = (
  reports: FunderReportsService,
  params: ReportRangeParams
) => Effect.Effect<Output, ValidationFailed, CurrentTenant | TenantAdmin>

/** Each report: fetched through the service, encoded as the API encodes it, and as text. */
const shows: Record<typeof kinds[number], Show> = {
  hours: (reports: FunderReportsService, params: ReportRangeParams) =>
    Effect.map(reports.hours(params), (r) => ({
      json: Schema.encodeSync(HoursReport)(r),
      text: [
        fields([["range", `${r.from} to ${r.to}`], ["hours", String(r.total)]]),
        monthTable("HOURS", r.by_month.map((m) => [m.month, m.hours])),
        table(["CATEGORY", "HOURS"], r.by_category.map((c) => [c.category, String(c.hours)]))
      ].join("\n\n")
    })),
  members: (reports: FunderReportsService, params: ReportRangeParams) =>
    Effect.map(reports.members(params), (r) => ({
      json: Schema.encodeSync(MembersReport)(r),
      text: [
        fields([
          ["range", `${r.from} to ${r.to}`],
          ["members", String(r.total)],
          ["active in range", String(r.active)],
          ["new in range", String(r.new_in_period)],
          ["by status", Object.entries(r.by_status).map(([s, n]) => `${s} ${n}`).join(", ")]
        ]),
        monthTable("NEW MEMBERS", r.by_month.map((m) => [m.month, m.new_members]))
      ].join("\n\n")
    })),
  "social-value": (reports: FunderReportsService, params: ReportRangeParams) =>
    Effect.map(reports.socialValue(params), (r) => ({
      json: Schema.encodeSync(SocialValueReport)(r),
      text: fields([
        ["range", `${r.from} to ${r.to}`],
        ["hours", String(r.hours)],
        ["hourly value", `${r.hourly_value} ${r.currency}`],
        ["social value", `${r.value} ${r.currency}`]
      ])
    }))
}

export const reportShow: Command<"services"> = {
  name: "report show",
  summary: "print a funder report: hours, members or social-value (as the admin API answers it)",
  positionals: [{ name: "KIND", description: kinds.join("|") }],
  options: [tenantOption, ...rangeOptions],
  examples: ["report show hours --tenant demo", "report show social-value --tenant 7 --from 2026-01-01 --json"],
  exits: [[ExitCode.notFound, "no such tenant, or no such report KIND"]],
  needs: "services",
  run: ([kind], flags) =>
    asOperatorIn(flags)(() =>
      Effect.gen(function*() {
        if (!(kinds as ReadonlyArray<string>).includes(kind!)) return yield* Effect.fail(NotFound.of("Report"))
        const params = yield* rangeOf(flags)
        const reports = yield* FunderReportsService
        return yield* shows[kind as typeof kinds[number]](reports, params).pipe(requireTenantAdmin)
      })
    )
}

export const reportCommands: ReadonlyArray<AnyCommand> = [reportShow, reportExport]
