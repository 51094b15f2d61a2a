import { type CreateReport, DomainEvents, NotFound, Report, ValidationFailed } from "@timebank/domain"
import { DateTime, Effect } from "effect"
import { Outbox } from "../platform/Outbox.js"
import { CommunityMember, requireCommunityMember } from "../platform/Policy.js"
import { TenantSql } from "../platform/TenantSql.js"
import { ReportRepo, type ReportRow } from "./ReportRepo.js"
import { ReportTargets } from "./ReportTargets.js"

const toReport = (row: ReportRow) =>
  Report.make({
    id: row.id,
    target_type: row.target_type,
    target_id: row.target_id,
    reason: row.reason,
    details: row.details,
    safeguarding: row.safeguarding,
    status: row.status,
    created_at: DateTime.unsafeFromDate(row.created_at)
  })

/** Reports members make about content or other members (decisions D14, D14a). */
export class ReportsService extends Effect.Service<ReportsService>()("ReportsService", {
  dependencies: [ReportRepo.Default, ReportTargets.Default, Outbox.Default, TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const repo = yield* ReportRepo
    const targets = yield* ReportTargets
    const outbox = yield* Outbox

    const create = Effect.fn("Reports.create")(
      function*(input: CreateReport) {
        const reporter = yield* CommunityMember
        if (input.target_type === "user" && input.target_id === reporter.userId) {
          return yield* ValidationFailed.field("target_id", "you cannot report yourself")
        }
        if (!(yield* targets.exists(input.target_type, input.target_id, reporter))) {
          return yield* new NotFound({ message: `No such ${input.target_type} to report`, field: "target_id" })
        }
        const details = input.details === undefined || input.details === null || input.details === ""
          ? null
          : input.details
        const row = yield* db.transaction(Effect.gen(function*() {
          const row = yield* repo.insert({
            reporterId: reporter.userId,
            targetType: input.target_type,
            targetId: input.target_id,
            reason: input.reason,
            details,
            safeguarding: input.safeguarding === true
          })
          if (row.safeguarding) {
            yield* outbox.append(
              new DomainEvents.SafeguardingFlagRaised({
                report_id: row.id,
                reporter_id: row.reporter_id,
                target_type: row.target_type,
                target_id: row.target_id,
                reason: row.reason
              })
            )
          }
          return row
        }))
        return toReport(row)
      },
      requireCommunityMember("report content")
    )

    return { create } as const
  })
}) {}
