import {
  accountCodeOf,
  CurrentTenant,
  type KomunitinAccountListParams,
  KomunitinBadRequest,
  NotFound,
  userIdOfAccountCode
} from "@timebank/domain"
import { Effect, Option } from "effect"
import { SharedMembers } from "../../identity/SharedMembers.js"
import { AppConfig } from "../../platform/AppConfig.js"
import { FederationAccounts } from "../accounts/FederationAccounts.js"
import { federationDisabled } from "../auth/FederationAccessLive.js"
import { FederationSwitches } from "../switches/FederationSwitches.js"
import {
  accountResource,
  baseOf,
  currencyIdOf,
  currencyResource,
  descendingBy,
  filterValues,
  pageLinks,
  pageOf
} from "./KomunitinViews.js"

const accountNotFound = () => new NotFound({ message: "Account not found" })

/**
 * What Komunitin reads of the community (decisions D16): the currency and members' accounts. The currency and an
 * account by id need no credentials (a Komunitin server reads the `href` of an external account), so these find
 * the community by `{CODE}` themselves and obey the switches as the gate would (toggle `transactions`).
 */
export class KomunitinReads extends Effect.Service<KomunitinReads>()("KomunitinReads", {
  dependencies: [FederationAccounts.Default, FederationSwitches.Default, SharedMembers.Default],
  effect: Effect.gen(function*() {
    const accounts = yield* FederationAccounts
    const switches = yield* FederationSwitches
    const members = yield* SharedMembers
    const { publicUrl } = yield* AppConfig

    /** Runs `read` in the community `code` names: platform switch (503) → code (404) → its switches (503). */
    const inCommunity = <A, E, R>(code: string, read: Effect.Effect<A, E, R>) =>
      Effect.gen(function*() {
        if (!(yield* switches.platformEnabled)) return yield* federationDisabled
        const tenant = yield* accounts.tenantOfCode(code)
        if (Option.isNone(tenant)) return yield* new NotFound({ message: "No currency has this code" })
        if (!(yield* switches.openFor(tenant.value, "transactions"))) return yield* federationDisabled
        return yield* Effect.provideService(read, CurrentTenant, tenant.value)
      })

    const currency = (code: string) =>
      inCommunity(
        code,
        Effect.map(CurrentTenant, (tenant) =>
          currencyResource(baseOf(publicUrl, code), currencyIdOf(publicUrl, tenant.id), code, tenant))
      )

    const account = (code: string, accountId: string) =>
      inCommunity(
        code,
        Effect.gen(function*() {
          const tenant = yield* CurrentTenant
          const found = yield* accounts.memberByAccountId(accountId)
          if (Option.isNone(found)) return yield* accountNotFound()
          return accountResource(baseOf(publicUrl, code), currencyIdOf(publicUrl, tenant.id), {
            id: found.value.row.account_id,
            code: accountCodeOf(code, found.value.row.user_id)
          })
        })
      )

    /**
     * Opted-in members' accounts by code (`filter[code]`, required: this server does not list its members to
     * Komunitin), ordered by code; in the caller's community, which the gate checked `code` names.
     */
    const byCodes = Effect.fn("KomunitinReads.byCodes")(function*(
      code: string,
      params: KomunitinAccountListParams,
      originalUrl: string
    ) {
      const tenant = yield* CurrentTenant
      const codes = filterValues(params["filter[code]"])
      if (codes.length === 0) {
        return yield* new KomunitinBadRequest({ message: "Give the accounts' codes in filter[code]" })
      }
      const wanted = codes.flatMap((c) => {
        const id = userIdOfAccountCode(code, c)
        return id === undefined ? [] : [id]
      })
      const found = yield* members.byIds(wanted)
      const descending = descendingBy(params, "code")
      const userIds = [...found.keys()].sort((a, b) => (descending ? b - a : a - b))
      const page = pageOf(params)
      const onPage = userIds.slice(page.offset, page.offset + page.size)
      const accountIds = yield* accounts.accountIdsOf(onPage)
      const base = baseOf(publicUrl, code)
      const currencyId = currencyIdOf(publicUrl, tenant.id)
      return {
        links: pageLinks(publicUrl, originalUrl, page, onPage.length),
        data: onPage.flatMap((userId) => {
          const id = accountIds.get(userId)
          return id === undefined ? [] : [accountResource(base, currencyId, { id, code: accountCodeOf(code, userId) })]
        })
      }
    })

    return { currency, account, byCodes } as const
  })
}) {}
