import { HttpApiBuilder } from "@effect/platform"
import { Api, ok } from "@timebank/domain"
import { Effect } from "effect"
import { DashboardService } from "./DashboardService.js"
import { OrganisationWalletService } from "./OrganisationWalletService.js"

/** The organisation owner's dashboards and wallet. */
export const OrganisationDashboardHttpLive = HttpApiBuilder.group(
  Api,
  "organisationDashboard",
  (handlers) =>
    Effect.gen(function*() {
      const dashboard = yield* DashboardService
      const wallet = yield* OrganisationWalletService
      return handlers
        .handle("stats", ({ path }) => Effect.map(dashboard.stats(path.id), ok))
        .handle("volunteers", ({ path, urlParams }) => dashboard.volunteers(path.id, urlParams))
        .handle("applications", ({ path, urlParams }) => dashboard.applications(path.id, urlParams))
        .handle("pendingHours", ({ path, urlParams }) => dashboard.pendingHours(path.id, urlParams))
        .handle("wallet", ({ path }) => Effect.map(wallet.wallet(path.id), ok))
        .handle("walletTransactions", ({ path, urlParams }) => wallet.transactions(path.id, urlParams))
        .handle(
          "deposit",
          ({ headers, path, payload }) => Effect.map(wallet.deposit(path.id, payload, headers["idempotency-key"]), ok)
        )
        .handle("autoPay", ({ path, payload }) => Effect.map(wallet.setAutoPay(path.id, payload.enabled), ok))
    })
)
