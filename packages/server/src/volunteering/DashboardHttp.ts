import { HttpApiBuilder } from "@effect/platform"
import { Api, ok } from "@timebank/domain"
import { Effect } from "effect"
import { requireModule } from "../platform/FeatureGate.js"
import { DashboardService } from "./DashboardService.js"
import { OrganisationWalletService } from "./OrganisationWalletService.js"

/** Organisation wallets are the `org_wallets` module (decisions D17): their routes answer 403 while it is off. */
export const walletsOn = <A, E, R>(route: Effect.Effect<A, E, R>) =>
  Effect.zipRight(requireModule("org_wallets"), route)

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
        .handle("wallet", ({ path }) => walletsOn(Effect.map(wallet.wallet(path.id), ok)))
        .handle("walletTransactions", ({ path, urlParams }) => walletsOn(wallet.transactions(path.id, urlParams)))
        .handle(
          "deposit",
          ({ headers, path, payload }) =>
            walletsOn(Effect.map(wallet.deposit(path.id, payload, headers["idempotency-key"]), ok))
        )
        .handle(
          "autoPay",
          ({ path, payload }) => walletsOn(Effect.map(wallet.setAutoPay(path.id, payload.enabled), ok))
        )
    })
)
