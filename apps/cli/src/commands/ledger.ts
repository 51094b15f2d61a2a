import { NotFound } from "@timebank/domain"
import { LedgerVerify } from "@timebank/server"
import { Effect } from "effect"
import type { Command } from "../Command.js"

const tenantOption = (value: string | boolean | undefined) =>
  value === undefined
    ? Effect.succeed(null)
    : typeof value === "string" && /^[1-9][0-9]*$/.test(value)
    ? Effect.succeed(Number(value))
    : Effect.fail(NotFound.of("Tenant"))

export const ledgerVerify: Command<"services"> = {
  name: "ledger verify",
  summary: "check the ledger: Σ entries per transaction = 0, Σ per account = balance, no forbidden negatives",
  synopsis: "[--tenant ID]",
  positionals: [],
  flags: ["tenant"],
  needs: "services",
  run: (_, flags) =>
    Effect.gen(function*() {
      const tenantId = yield* tenantOption(flags["tenant"])
      const report = yield* (yield* LedgerVerify).verify(tenantId)
      const problems = report.unbalancedTransactions.length + report.balanceMismatches.length +
        report.negativeBalances.length
      const lines = [
        `${report.ok ? "ok" : "PROBLEMS FOUND"}: ${report.transactions} transactions, ${report.accounts} accounts` +
        ` in ${report.tenants} tenant(s)`,
        ...report.unbalancedTransactions.map((t) =>
          `  transaction ${t.transactionId}: entries sum to ${t.sum} (${t.entries} entries)`
        ),
        ...report.balanceMismatches.map((a) => `  account ${a.accountId}: balance ${a.balance}, entries ${a.entries}`),
        ...report.negativeBalances.map((a) => `  account ${a.accountId}: forbidden negative balance ${a.balance}`)
      ]
      return { json: report, text: lines.join("\n"), exitCode: problems === 0 ? 0 : 1 }
    })
}
