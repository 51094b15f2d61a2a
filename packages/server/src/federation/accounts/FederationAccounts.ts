import {
  accountCodeOf,
  CurrencyCodeTaken,
  CurrentTenant,
  defaultCurrencyCode,
  FederationAccount,
  type Tenant,
  tenantIdOfDefaultCode,
  userIdOfAccountCode,
  UUID_PATTERN
} from "@timebank/domain"
import { Effect, Option } from "effect"
import { SharedMembers } from "../../identity/SharedMembers.js"
import { AppConfig } from "../../platform/AppConfig.js"
import { TenantDirectory } from "../../tenancy/TenantDirectory.js"
import { FederationAccountsRepo } from "./FederationAccountsRepo.js"

/** Whether `text` is a UUID (any version), as account and transfer ids must be. */
export const isUuid = (text: string) => UUID_PATTERN.test(text)

/**
 * The community's currency code and its members' accounts as partners address them (decisions D16): `{CODE}` in
 * `/api/v1/federation/{CODE}/…` picks the community; an account is a UUID made on first use, its code `CODE` + the
 * user id. Only opted-in, active members are found by partners (`SharedMembers`).
 */
export class FederationAccounts extends Effect.Service<FederationAccounts>()("FederationAccounts", {
  dependencies: [FederationAccountsRepo.Default, TenantDirectory.Default, SharedMembers.Default],
  effect: Effect.gen(function*() {
    const repo = yield* FederationAccountsRepo
    const tenants = yield* TenantDirectory
    const members = yield* SharedMembers
    const config = yield* AppConfig

    const currencyCode = (tenantId: number) =>
      Effect.map(repo.storedCode(tenantId), Option.getOrElse(() => defaultCurrencyCode(tenantId)))

    /** The existing community a default code names, unless that community set a code of its own. */
    const tenantOfDefaultCode = (code: string) => {
      const id = tenantIdOfDefaultCode(code)
      if (id === undefined || id < 1 || defaultCurrencyCode(id) !== code) return Effect.succeedNone
      return Effect.map(
        Effect.all([repo.storedCode(id), tenants.findById(id)]),
        ([stored, tenant]) => Option.isNone(stored) && Option.isSome(tenant) ? Option.some(id) : Option.none()
      )
    }

    /** The community `code` names: a set code first, else a default one. */
    const tenantIdOfCode = (code: string) =>
      Effect.flatMap(
        repo.tenantWithCode(code),
        (set) => Option.isSome(set) ? Effect.succeed(set) : tenantOfDefaultCode(code)
      )

    const tenantOfCode = (code: string): Effect.Effect<Option.Option<Tenant>> =>
      Effect.flatMap(
        tenantIdOfCode(code),
        Option.match({ onNone: () => Effect.succeedNone, onSome: (id) => tenants.findById(id) })
      )

    const hrefOf = (code: string, accountId: string) =>
      `${config.publicUrl.replace(/\/+$/, "")}/api/v1/federation/${code}/accounts/${accountId}`

    const accountView = (code: string, userId: number, accountId: string) =>
      FederationAccount.make({
        currency_code: code,
        account_id: accountId,
        account_code: accountCodeOf(code, userId),
        href: hrefOf(code, accountId)
      })

    /** The accounts of `userIds` (made on first use), by user id. */
    const accountIdsOf = (userIds: ReadonlyArray<number>) =>
      userIds.length === 0
        ? Effect.succeed(new Map<number, string>())
        : Effect.map(repo.ensureAccounts([...new Set(userIds)]), (rows) =>
          new Map(rows.map((row) => [row.user_id, row.account_id])))

    const accountOf = Effect.fn("FederationAccounts.accountOf")(function*(userId: number) {
      const tenant = yield* CurrentTenant
      const code = yield* currencyCode(tenant.id)
      const ids = yield* accountIdsOf([userId])
      return accountView(code, userId, ids.get(userId) ?? "")
    })

    /** An opted-in member of the current tenant by account UUID. */
    const memberByAccountId = (accountId: string) =>
      isUuid(accountId)
        ? Effect.flatMap(repo.byAccountId(accountId.toLowerCase()), (row) =>
          Option.isNone(row)
            ? Effect.succeedNone
            : Effect.map(members.find(row.value.user_id), Option.map((member) => ({ member, row: row.value }))))
        : Effect.succeedNone

    /** An opted-in member of the current tenant by account code (`CODE0042`). */
    const memberByCode = Effect.fn("FederationAccounts.memberByCode")(function*(accountCode: string) {
      const tenant = yield* CurrentTenant
      const userId = userIdOfAccountCode(yield* currencyCode(tenant.id), accountCode)
      if (userId === undefined) return Option.none()
      return yield* members.find(userId)
    })

    /** Sets the code (null: back to the default); a code another community uses, set or default, is taken. */
    const setCurrencyCode = Effect.fn("FederationAccounts.setCurrencyCode")(
      function*(tenantId: number, code: string | null) {
        if (code !== null) {
          const holder = yield* tenantIdOfCode(code)
          if (Option.isSome(holder) && holder.value !== tenantId) {
            return yield* new CurrencyCodeTaken({ message: "Another community uses this currency code" })
          }
        }
        if (!(yield* repo.setCode(tenantId, code))) {
          return yield* new CurrencyCodeTaken({ message: "Another community uses this currency code" })
        }
        return yield* currencyCode(tenantId)
      }
    )

    return {
      currencyCode,
      tenantOfCode,
      hrefOf,
      accountOf,
      accountIdsOf,
      memberByAccountId,
      memberByCode,
      setCurrencyCode
    } as const
  })
}) {}
