import { HttpApiBuilder } from "@effect/platform"
import { Api, ok } from "@timebank/domain"
import { Effect } from "effect"
import { AdminOrganisationsService } from "./AdminOrganisationsService.js"
import { walletsOn } from "./DashboardHttp.js"

export const AdminOrganisationsHttpLive = HttpApiBuilder.group(
  Api,
  "adminOrganisations",
  (handlers) =>
    Effect.gen(function*() {
      const admin = yield* AdminOrganisationsService
      return handlers
        .handle("list", ({ urlParams }) => admin.list(urlParams))
        .handle("create", ({ payload }) => Effect.map(admin.create(payload), ok))
        .handle("update", ({ path, payload }) => Effect.map(admin.update(path.id, payload), ok))
        .handle("setStatus", ({ path, payload }) => Effect.map(admin.setStatus(path.id, payload.status), ok))
        .handle("members", ({ path, urlParams }) => admin.members(path.id, urlParams))
        .handle(
          "adjustWallet",
          ({ headers, path, payload }) =>
            walletsOn(Effect.map(admin.adjustWallet(path.id, payload, headers["idempotency-key"]), ok))
        )
        .handle("walletTransactions", ({ path, urlParams }) => walletsOn(admin.walletTransactions(path.id, urlParams)))
    })
)
