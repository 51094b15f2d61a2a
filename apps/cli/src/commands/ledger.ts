import { LedgerVerify } from "@timebank/server"
import { Effect } from "effect"
import type { AnyCommand, Command } from "../Command.js"
import { ExitCode } from "../ExitCode.js"
import { findTenant, tenantOption } from "../Operator.js"

export const ledgerVerify: Command<"services"> = {
  name: "ledger verify",
  summary: "check the ledger: Σ entries per transaction = 0, Σ per account = balance, no forbidden negatives",
  details: "Reads every transaction and account of the tenant (of all tenants without --tenant) in a few " +
    "aggregate queries and lists each problem found. Changes nothing.",
  positionals: [],
  options: [{ ...tenantOption, required: false, description: "only this community, by id or slug (default: all)" }],
  examples: ["ledger verify", "ledger verify --tenant demo --json"],
  exits: [
    [ExitCode.notFound, "no tenant has this id or slug"],
    [ExitCode.checkFailed, "problems found (listed on stdout, or in the JSON report)"]
  ],
  needs: "services",
  run: (_, flags) =>
    Effect.gen(function*() {
      const ref = flags["tenant"]
      const tenant = typeof ref === "string" ? yield* findTenant(ref) : undefined
      const report = yield* (yield* LedgerVerify).verify(tenant?.id ?? null)
      const problems = report.unbalancedTransactions.length + report.balanceMismatches.length +
        report.negativeBalances.length
      const scope = tenant === undefined ? `in ${report.tenants} tenant(s)` : `in tenant ${tenant.id} "${tenant.slug}"`
      const lines = [
        `${report.ok ? "ok" : `PROBLEMS FOUND (${problems})`}: ${report.transactions} transactions, ` +
        `${report.accounts} accounts ${scope}`,
        ...report.unbalancedTransactions.map((t) =>
          `  transaction ${t.transactionId}: entries sum to ${t.sum} (${t.entries} entries)`
        ),
        ...report.balanceMismatches.map((a) => `  account ${a.accountId}: balance ${a.balance}, entries ${a.entries}`),
        ...report.negativeBalances.map((a) => `  account ${a.accountId}: forbidden negative balance ${a.balance}`)
      ]
      return { json: report, text: lines.join("\n"), exitCode: problems === 0 ? ExitCode.ok : ExitCode.checkFailed }
    })
}

export const ledgerCommands: ReadonlyArray<AnyCommand> = [ledgerVerify]
