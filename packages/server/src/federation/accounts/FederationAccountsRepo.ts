import { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { pgArray } from "../../platform/SqlArrays.js"
import { isUniqueViolation } from "../../platform/SqlErrors.js"
import { DbInt, decodeFirst, decodeRows } from "../../platform/SqlRows.js"
import { dieOnSqlError, TenantSql } from "../../platform/TenantSql.js"

const CodeRow = Schema.Struct({ currency_code: Schema.NullOr(Schema.String) })
const TenantRow = Schema.Struct({ tenant_id: DbInt })
const AccountRow = Schema.Struct({ user_id: DbInt, account_id: Schema.String })
export type AccountRow = typeof AccountRow.Type

const accountRows = decodeRows(AccountRow)

/**
 * Communities' currency codes (in `federation_tenant_settings`) and members' federation accounts. Codes are read
 * by explicit tenant id: `{CODE}` in a path is how a federation request finds its community.
 */
export class FederationAccountsRepo extends Effect.Service<FederationAccountsRepo>()("FederationAccountsRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const sql = yield* SqlClient.SqlClient

    return {
      /** The code the community's admins set, if any. */
      storedCode: (tenantId: number) =>
        sql`SELECT currency_code FROM federation_tenant_settings WHERE tenant_id = ${tenantId}`.pipe(
          decodeFirst(CodeRow),
          Effect.map(Option.flatMap((row) => Option.fromNullable(row.currency_code))),
          dieOnSqlError
        ),

      /** The community that set `code`. */
      tenantWithCode: (code: string) =>
        sql`SELECT tenant_id FROM federation_tenant_settings WHERE currency_code = ${code}`.pipe(
          decodeFirst(TenantRow),
          Effect.map(Option.map((row) => row.tenant_id)),
          dieOnSqlError
        ),

      /** Sets (or, with null, clears) the code; false when another community has it. */
      setCode: (tenantId: number, code: string | null) =>
        sql`
          INSERT INTO federation_tenant_settings (tenant_id, currency_code) VALUES (${tenantId}, ${code})
          ON CONFLICT (tenant_id) DO UPDATE SET currency_code = EXCLUDED.currency_code, updated_at = now()`.pipe(
          Effect.as(true),
          Effect.catchIf(isUniqueViolation, () => Effect.succeed(false)),
          dieOnSqlError
        ),

      /** The accounts of `userIds` in the current tenant, made for those who had none. */
      ensureAccounts: (userIds: ReadonlyArray<number>) =>
        db.query((tenantId) =>
          Effect.zipRight(
            sql`
              INSERT INTO federation_member_accounts (tenant_id, user_id, account_id)
              SELECT ${tenantId}, u, gen_random_uuid() FROM unnest(${pgArray(userIds)}::bigint[]) AS u
              ON CONFLICT (tenant_id, user_id) DO NOTHING`,
            sql`
              SELECT user_id, account_id::text FROM federation_member_accounts
              WHERE tenant_id = ${tenantId} AND user_id = ANY(${pgArray(userIds)}::bigint[])`.pipe(accountRows)
          )
        ),

      /** The member whose account `accountId` is, in the current tenant. */
      byAccountId: (accountId: string) =>
        db.query((tenantId) =>
          sql`
            SELECT user_id, account_id::text FROM federation_member_accounts
            WHERE tenant_id = ${tenantId} AND account_id = ${accountId}::uuid`.pipe(decodeFirst(AccountRow))
        )
    } as const
  })
}) {}
