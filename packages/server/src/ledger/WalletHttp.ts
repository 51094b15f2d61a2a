import { HttpApiBuilder } from "@effect/platform"
import { Api, cursorPage, encodeCursor, ok } from "@timebank/domain"
import { Effect } from "effect"
import { requireTenantAdmin } from "../platform/Policy.js"
import { LedgerService } from "./LedgerService.js"

export const WalletHttpLive = HttpApiBuilder.group(Api, "wallet", (handlers) =>
  Effect.gen(function*() {
    const ledger = yield* LedgerService
    return handlers
      .handle("get", () => Effect.map(ledger.wallet, ok))
      .handle("transactions", ({ urlParams }) => {
        const perPage = urlParams.per_page ?? 20
        return Effect.map(
          ledger.transactions(urlParams.cursor, perPage),
          (rows) => cursorPage(rows, perPage, (last) => encodeCursor(last.id))
        )
      })
      .handle("transaction", ({ path }) => Effect.map(ledger.transaction(path.id), ok))
      .handle(
        "transfer",
        ({ headers, payload }) => Effect.map(ledger.transfer(payload, headers["idempotency-key"]), ok)
      )
  }))

export const AdminWalletHttpLive = HttpApiBuilder.group(Api, "adminWallet", (handlers) =>
  Effect.gen(function*() {
    const ledger = yield* LedgerService
    return handlers.handle("grant", ({ headers, payload }) =>
      Effect.map(requireTenantAdmin(ledger.grant(payload, headers["idempotency-key"])), ok))
  }))
