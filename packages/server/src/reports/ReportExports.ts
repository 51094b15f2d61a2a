import {
  CurrentTenant,
  REPORT_EXPORTS,
  type ReportExportDescription,
  ReportExportType,
  type ReportRangeParams
} from "@timebank/domain"
import { Chunk, Clock, Effect, Stream } from "effect"
import { EventReports } from "../events/EventReports.js"
import { MemberReports } from "../identity/MemberReports.js"
import { LedgerReports, partyOf } from "../ledger/LedgerReports.js"
import { LedgerStats } from "../ledger/LedgerStats.js"
import { TenantAdmin } from "../platform/Policy.js"
import { VolunteeringReports } from "../volunteering/VolunteeringReports.js"
import { csvRecord, csvRecords, type CsvValue } from "./CsvEncoder.js"
import { FunderReportsService } from "./FunderReportsService.js"
import { localToday, type ReportRange } from "./ReportRange.js"

type Records = Stream.Stream<ReadonlyArray<CsvValue>, never, CurrentTenant>

/** Rows looked up in another feature per batch (balances, e-mails): one query per this many rows, never per row. */
const LOOKUP_BATCH = 1000

/** The organisation column of the hours export's exchange lines (exchanges belong to no organisation). */
export const MEMBER_EXCHANGES = "Member exchanges"

/** `GET /admin/reports/export-types`: every export with its label, description and columns. */
export const exportTypes: ReadonlyArray<ReportExportDescription> = ReportExportType.literals.map((type) => ({
  type,
  ...REPORT_EXPORTS[type]
}))

/** A streamed CSV file: its name and its bytes, produced as the client reads them. */
export interface CsvExport {
  readonly filename: string
  readonly body: Stream.Stream<Uint8Array>
}

/**
 * The CSV exports of funder reports (decisions D17 "Funder reports"): each type's rows come from its owner's
 * database cursor and are encoded a chunk at a time into the response body, so memory stays flat however many
 * rows there are. Lookups in other features (balances, owners' e-mails) are one query per {@link LOOKUP_BATCH} rows.
 */
export class ReportExports extends Effect.Service<ReportExports>()("ReportExports", {
  dependencies: [
    FunderReportsService.Default,
    MemberReports.Default,
    LedgerReports.Default,
    LedgerStats.Default,
    VolunteeringReports.Default,
    EventReports.Default
  ],
  effect: Effect.gen(function*() {
    const reports = yield* FunderReportsService
    const members = yield* MemberReports
    const ledger = yield* LedgerReports
    const ledgerStats = yield* LedgerStats
    const volunteering = yield* VolunteeringReports
    const events = yield* EventReports

    const records: { readonly [T in ReportExportType]: (range: ReportRange) => Records } = {
      members: (range) =>
        members.members(range.period.to).pipe(
          Stream.rechunk(LOOKUP_BATCH),
          Stream.mapChunksEffect((chunk) =>
            Effect.map(ledger.memberBalances(Chunk.toReadonlyArray(chunk).map((m) => m.id)), (balances) =>
              Chunk.map(chunk, (m): ReadonlyArray<CsvValue> => [
                m.id,
                m.first_name,
                m.last_name,
                m.email,
                m.role,
                m.status,
                balances.get(m.id) ?? 0,
                m.created_at
              ]))
          )
        ),
      transactions: (range) =>
        Stream.map(ledger.transactions(range.period), (t): ReadonlyArray<CsvValue> => [
          t.id,
          t.created_at,
          t.type,
          partyOf(t.from_kind, t.from_owner),
          partyOf(t.to_kind, t.to_owner),
          t.amount,
          t.description
        ]),
      hours: (range) =>
        Stream.concat(
          Stream.map(volunteering.hoursPerOrganisationMonth(range), (row): ReadonlyArray<CsvValue> => [
            row.organisation_id,
            row.organisation,
            row.month,
            row.hours
          ]),
          Stream.fromIterableEffect(Effect.map(ledgerStats.exchangesPerDay(range.monthBuckets), (rows) =>
            [...rows]
              .sort((a, b) => a.day - b.day)
              .flatMap((row): ReadonlyArray<ReadonlyArray<CsvValue>> =>
                row.total > 0 ? [[null, MEMBER_EXCHANGES, range.months[row.day]!, row.total]] : []
              )))
        ),
      events: (range) =>
        Stream.map(events.events(range.period), (e): ReadonlyArray<CsvValue> => [
          e.id,
          e.title,
          e.start_time,
          e.end_time,
          e.location,
          e.going,
          e.attended,
          e.status
        ]),
      organisations: (range) =>
        volunteering.organisations(range).pipe(
          Stream.rechunk(LOOKUP_BATCH),
          Stream.mapChunksEffect((chunk) =>
            Effect.map(members.emails(Chunk.toReadonlyArray(chunk).map((o) => o.owner_id)), (emails) =>
              Chunk.map(chunk, (o): ReadonlyArray<CsvValue> => [
                o.id,
                o.name,
                o.status,
                emails.get(o.owner_id) ?? null,
                o.volunteers,
                o.hours
              ]))
          )
        ),
      "social-value": (range) =>
        Stream.fromEffect(Effect.map(reports.socialValueOf(range), (v): ReadonlyArray<CsvValue> => [
          v.from,
          v.to,
          v.hours,
          v.hourly_value,
          v.currency,
          v.value
        ]))
    }

    /** The export of `type` for the request's range (422 on a bad range), ready to stream. */
    const csv = Effect.fn("ReportExports.csv")(function*(type: ReportExportType, params: ReportRangeParams) {
      yield* TenantAdmin
      const tenant = yield* CurrentTenant
      const range = yield* reports.rangeOf(params)
      const encoder = new TextEncoder()
      const header = csvRecord(REPORT_EXPORTS[type].columns)
      const body = records[type](range).pipe(
        Stream.mapChunks((chunk) => Chunk.of(encoder.encode(csvRecords(Chunk.toReadonlyArray(chunk))))),
        Stream.prepend(Chunk.of(encoder.encode(header))),
        Stream.provideService(CurrentTenant, tenant)
      )
      const today = localToday(tenant.timezone, new Date(yield* Clock.currentTimeMillis))
      return { filename: `${type}-${today}.csv`, body } satisfies CsvExport
    })

    return { csv } as const
  })
}) {}
