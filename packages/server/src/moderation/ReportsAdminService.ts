import {
  AdminReport,
  AdminReportDetail,
  type AdminReportsParams,
  type DismissReport,
  NotFound,
  offsetMeta,
  ReportAlreadyProcessed,
  type ReportId,
  type ReportStatsView,
  type ResolveReport,
  UserId,
  type UserSummary,
  ValidationFailed
} from "@timebank/domain"
import { DateTime, Effect, Option } from "effect"
import { AdminUsersService } from "../identity/AdminUsersService.js"
import { UserSummaries } from "../identity/UserSummaries.js"
import { offsetPage } from "../platform/Paging.js"
import { requireTenantAdmin, TenantAdmin } from "../platform/Policy.js"
import { TenantSql } from "../platform/TenantSql.js"
import { type AdminReportRow, type ReportClosing, ReportsAdminRepo } from "./ReportsAdminRepo.js"
import { ReportTargetViews } from "./ReportTargetViews.js"

export const DEFAULT_ADMIN_REPORTS_PER_PAGE = 20

const reportNotFound = () => NotFound.of("Report")
const alreadyProcessed = (status: string) =>
  new ReportAlreadyProcessed({ message: `This report is ${status} already: only open reports can be closed` })

/** Shown for a member the users table no longer answers for (it keeps erased users, so this should not happen). */
const summaryOf = (summaries: ReadonlyMap<number, UserSummary>, id: number): UserSummary =>
  summaries.get(id) ?? { id: UserId.make(id), first_name: "Deleted", last_name: "User", avatar_url: null }

const fieldsOf = (row: AdminReportRow, summaries: ReadonlyMap<number, UserSummary>) => ({
  id: row.id,
  reporter: summaryOf(summaries, row.reporter_id),
  target_type: row.target_type,
  target_id: row.target_id,
  reason: row.reason,
  details: row.details,
  safeguarding: row.safeguarding,
  status: row.status,
  action: row.resolution_action,
  note: row.resolution_note,
  resolved_by: row.resolved_by === null ? null : summaryOf(summaries, row.resolved_by),
  resolved_at: row.resolved_at === null ? null : DateTime.unsafeFromDate(row.resolved_at),
  created_at: DateTime.unsafeFromDate(row.created_at)
})

const noteOf = (note: string | null | undefined) => (note === undefined || note === null || note === "" ? null : note)

/**
 * Members' reports for the community's admins (decisions D14, D15, D17 "Moderation"): list, stats, detail with the
 * target as it is now, and closing them. Resolving does its action through the owning feature (hiding through
 * feed or volunteering, suspending through identity's admin users service) and closes the report in the same
 * transaction, so an action that fails leaves the report open, and a report closed meanwhile undoes the action.
 */
export class ReportsAdminService extends Effect.Service<ReportsAdminService>()("ReportsAdminService", {
  dependencies: [
    ReportsAdminRepo.Default,
    ReportTargetViews.Default,
    AdminUsersService.Default,
    UserSummaries.Default,
    TenantSql.Default
  ],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const repo = yield* ReportsAdminRepo
    const targets = yield* ReportTargetViews
    const admins = yield* AdminUsersService
    const users = yield* UserSummaries

    const peopleOf = (rows: ReadonlyArray<AdminReportRow>) =>
      users.byIds(rows.flatMap((r) => (r.resolved_by === null ? [r.reporter_id] : [r.reporter_id, r.resolved_by])))

    const detail = (row: AdminReportRow) =>
      Effect.gen(function*() {
        const [people, target] = yield* Effect.all([peopleOf([row]), targets.inspect(row)], { concurrency: 2 })
        return AdminReportDetail.make({ ...fieldsOf(row, people), target: target.snapshot })
      })

    const find = (id: number) => Effect.flatten(repo.findById(id)).pipe(Effect.orElseFail(reportNotFound))

    const open = (id: number) =>
      Effect.filterOrFail(find(id), (row) => row.status === "open", (row) => alreadyProcessed(row.status))

    /** Closes the open report inside the current transaction; closed meanwhile → 409 (the transaction rolls back). */
    const close = (id: number, closing: ReportClosing) =>
      Effect.flatMap(repo.close(id, closing), (row) =>
        Option.match(row, {
          onNone: () => Effect.flatMap(find(id), (current) => Effect.fail(alreadyProcessed(current.status))),
          onSome: Effect.succeed
        }))

    const list = Effect.fn("ReportsAdmin.list")(function*(params: AdminReportsParams) {
      yield* TenantAdmin
      const { page, perPage } = offsetPage(params, DEFAULT_ADMIN_REPORTS_PER_PAGE)
      const { rows, total } = yield* repo.list({
        page,
        perPage,
        status: params.status,
        targetType: params.target_type,
        safeguarding: params.safeguarding,
        reporterId: params.reporter_id
      })
      const people = yield* peopleOf(rows)
      return {
        data: rows.map((row) => AdminReport.make(fieldsOf(row, people))),
        meta: offsetMeta(page, perPage, total)
      }
    }, requireTenantAdmin)

    const stats = Effect.fn("ReportsAdmin.stats")(function*() {
      yield* TenantAdmin
      return (yield* repo.stats) satisfies ReportStatsView
    }, requireTenantAdmin)

    const get = Effect.fn("ReportsAdmin.get")(function*(id: ReportId) {
      yield* TenantAdmin
      return yield* detail(yield* find(id))
    }, requireTenantAdmin)

    /**
     * `hide_content` hides the reported post, comment or review; `suspend_member` suspends the reported member or
     * the author of the reported content, through identity's admin suspend (its rules apply: not oneself, not a
     * platform account). Either, on a target that cannot take it, is 422 on `action`.
     */
    const resolve = Effect.fn("ReportsAdmin.resolve")(function*(id: ReportId, input: ResolveReport) {
      const admin = yield* TenantAdmin
      const report = yield* open(id)
      const closed = yield* db.transaction(Effect.gen(function*() {
        if (input.action === "hide_content") yield* targets.hide(report)
        if (input.action === "suspend_member") {
          const { memberId, snapshot } = yield* targets.inspect(report)
          if (!snapshot.exists) {
            return yield* ValidationFailed.field("action", `the reported ${report.target_type} no longer exists`)
          }
          if (memberId === null) {
            return yield* ValidationFailed.field("action", `no member to suspend for a reported ${report.target_type}`)
          }
          yield* admins.suspend(UserId.make(memberId)).pipe(
            Effect.catchIf(
              (e): e is NotFound => e instanceof NotFound,
              () => ValidationFailed.field("action", "the member to suspend no longer exists")
            )
          )
        }
        return yield* close(id, {
          status: "resolved",
          action: input.action,
          note: noteOf(input.note),
          adminId: admin.userId
        })
      }))
      return yield* detail(closed)
    }, requireTenantAdmin)

    const dismiss = Effect.fn("ReportsAdmin.dismiss")(function*(id: ReportId, input: DismissReport) {
      const admin = yield* TenantAdmin
      yield* open(id)
      const closed = yield* db.transaction(
        close(id, { status: "dismissed", action: null, note: noteOf(input?.note), adminId: admin.userId })
      )
      return yield* detail(closed)
    }, requireTenantAdmin)

    return { list, stats, get, resolve, dismiss } as const
  })
}) {}
