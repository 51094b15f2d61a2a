import {
  type CreatePartner,
  CurrentTenant,
  FederationStateConflict,
  fromCents,
  NATIVE_CREDENTIAL_KEYS,
  NotFound,
  offsetMeta,
  type PartnerPosition,
  type PartnerProtocol,
  type PartnersParams,
  type PartnerTestResult,
  type UpdatePartner,
  ValidationFailed
} from "@timebank/domain"
import { Array as Arr, Effect, Option } from "effect"
import { randomUUID } from "node:crypto"
import { LedgerService } from "../../ledger/LedgerService.js"
import { requireTenantAdmin } from "../../platform/Policy.js"
import { SecretBox } from "../../platform/SecretBox.js"
import { isSuccess, outboundCredentials, signedPost } from "../outbound/SignedPost.js"
import { PartnerDirectory } from "./PartnerDirectory.js"
import { PartnerRepo, type PartnerRow, type StatusChange } from "./PartnerRepo.js"
import { partnerCreditLimit, partnerView } from "./PartnerViews.js"

export const DEFAULT_PARTNERS_PER_PAGE = 20

/** Where the test call goes: the partner's webhook URL, else its `webhooks/test` route (decisions D13a). */
export const testUrlOf = (partner: { readonly base_url: string; readonly webhook_url: string | null }) =>
  partner.webhook_url ?? `${partner.base_url.replace(/\/+$/, "")}/api/v1/federation/webhooks/test`

const notFound = () => NotFound.of("Partner")

/**
 * Native partners take exactly `api_key` and `signing_secret` (both, or none yet). The other protocols' names come
 * with their adapters (issue 17); until then any names are kept.
 */
const credentialIssues = (protocol: PartnerProtocol, keys: ReadonlyArray<string>) => {
  if (protocol !== "native" || keys.length === 0) return []
  const allowed: ReadonlyArray<string> = NATIVE_CREDENTIAL_KEYS
  return [
    ...keys.filter((k) => !allowed.includes(k)).map((k) => ({
      field: `credentials.${k}`,
      message: "is not a credential of native partners (api_key, signing_secret)"
    })),
    ...allowed.filter((k) => !keys.includes(k)).map((k) => ({
      field: `credentials.${k}`,
      message: "is required for native partners"
    }))
  ]
}

const checkCredentials = (protocol: PartnerProtocol, keys: ReadonlyArray<string>) => {
  const issues = credentialIssues(protocol, keys)
  return Arr.isNonEmptyArray(issues) ? Effect.fail(new ValidationFailed({ issues })) : Effect.void
}

/** Settings merged key by key; a key set to null is removed (so `credit_limit: null` goes back to the default). */
const mergeSettings = (stored: Readonly<Record<string, unknown>>, patch: Readonly<Record<string, unknown>>) =>
  Object.fromEntries(
    Object.entries({ ...stored, ...patch }).filter(([, value]) => value !== null && value !== undefined)
  )

/**
 * Partner platforms of a community for its admins (decisions D13, D13a): CRUD with sealed credentials, the signed
 * test call, suspension and the clearing position. `position` needs `LedgerService` from the app (the Ledger entity
 * client); the service itself does not, so the CLI builds it without a cluster.
 */
export class PartnersService extends Effect.Service<PartnersService>()("PartnersService", {
  dependencies: [PartnerRepo.Default, PartnerDirectory.Default, SecretBox.Default],
  effect: Effect.gen(function*() {
    const repo = yield* PartnerRepo
    const directory = yield* PartnerDirectory
    const box = yield* SecretBox

    const found = (id: number) =>
      Effect.flatMap(repo.find(id), Option.match({ onNone: () => Effect.fail(notFound()), onSome: Effect.succeed }))

    /** The sealed box and the names of `credentials`; no box when there are none. */
    const sealed = (credentials: Readonly<Record<string, string>>) => {
      const keys = Object.keys(credentials).sort()
      return keys.length === 0
        ? Effect.succeed({ sealed: null, keys })
        : Effect.map(box.seal(JSON.stringify(credentials)), (text) => ({ sealed: text as string | null, keys }))
    }

    const changed = (change: StatusChange, verb: string) => {
      switch (change._tag) {
        case "Changed":
          return Effect.succeed(partnerView(change.row))
        case "NotFound":
          return Effect.fail(notFound())
        case "WrongState":
          return Effect.fail(
            new FederationStateConflict({ message: `A ${change.status} partner cannot be ${verb}` })
          )
      }
    }

    const listPartners = Effect.fn("Partners.list")(function*(params: PartnersParams) {
      const page = params.page ?? 1
      const perPage = params.per_page ?? DEFAULT_PARTNERS_PER_PAGE
      const { rows, total } = yield* repo.list({ status: params.status, page, perPage })
      return { data: rows.map(partnerView), meta: offsetMeta(page, perPage, total) }
    })

    const list = (params: PartnersParams) => requireTenantAdmin(listPartners(params))

    const create = Effect.fn("Partners.create")(function*(input: CreatePartner) {
      const credentials = input.credentials ?? {}
      yield* checkCredentials(input.protocol_type, Object.keys(credentials))
      const secrets = yield* sealed(credentials)
      const row = yield* repo.insert({
        name: input.name,
        protocolType: input.protocol_type,
        baseUrl: input.base_url,
        webhookUrl: input.webhook_url ?? null,
        credentials: secrets.sealed,
        credentialKeys: secrets.keys,
        settings: input.settings ?? {}
      })
      return partnerView(row)
    }, requireTenantAdmin)

    const get = Effect.fn("Partners.get")(function*(id: number) {
      return partnerView(yield* found(id))
    }, requireTenantAdmin)

    const update = Effect.fn("Partners.update")(function*(id: number, input: UpdatePartner) {
      const row = yield* found(id)
      const protocol = input.protocol_type ?? row.protocol_type
      if (input.protocol_type !== undefined || input.credentials !== undefined) {
        yield* checkCredentials(protocol, input.credentials ? Object.keys(input.credentials) : row.credential_keys)
      }
      const updated = yield* repo.update(id, {
        name: input.name,
        protocolType: input.protocol_type,
        baseUrl: input.base_url,
        webhookUrl: input.webhook_url,
        credentials: input.credentials === undefined ? undefined : yield* sealed(input.credentials),
        settings: input.settings === undefined ? undefined : mergeSettings(row.settings, input.settings)
      })
      return partnerView(
        yield* Option.match(updated, { onNone: () => Effect.fail(notFound()), onSome: Effect.succeed })
      )
    }, requireTenantAdmin)

    const remove = Effect.fn("Partners.delete")(function*(id: number) {
      if (!(yield* repo.softDelete(id))) return yield* notFound()
      return { id: id as PartnerRow["id"], deleted: true as const }
    }, requireTenantAdmin)

    const suspend = Effect.fn("Partners.suspend")(function*(id: number) {
      return yield* changed(yield* repo.suspend(id), "suspended")
    }, requireTenantAdmin)

    const reactivate = Effect.fn("Partners.reactivate")(function*(id: number) {
      return yield* changed(yield* repo.reactivate(id), "reactivated")
    }, requireTenantAdmin)

    const position = Effect.fn("Partners.position")(function*(id: number) {
      const row = yield* found(id)
      const ledger = yield* LedgerService
      const { cents, transactions } = yield* Effect.all({
        cents: ledger.partnerBalance(row.id),
        transactions: repo.transactionCount(row.id)
      }, { concurrency: 2 })
      return {
        balance: fromCents(cents),
        credit_limit: partnerCreditLimit(row.settings),
        transactions
      } satisfies PartnerPosition
    }, requireTenantAdmin)

    /** The signed `test` webhook (decisions D13a); a 2xx activates a `pending` or `failed` partner. */
    const test = Effect.fn("Partners.test")(function*(id: number) {
      const row = yield* found(id)
      const tenant = yield* CurrentTenant
      const credentials = outboundCredentials(yield* directory.opened(row))
      if (Option.isNone(credentials)) {
        return {
          ok: false,
          status_code: null,
          latency_ms: 0,
          error: "the partner has no api_key and signing_secret to sign with"
        } satisfies PartnerTestResult
      }
      const webhookId = randomUUID()
      const result = yield* signedPost({
        url: testUrlOf(row),
        body: {
          id: webhookId,
          event: "test",
          tenant: { id: tenant.id, slug: tenant.slug },
          occurred_at: new Date().toISOString(),
          data: {}
        },
        credentials: credentials.value,
        webhookId
      })
      const ok = isSuccess(result)
      if (ok) yield* repo.activateAfterTest(row.id)
      return {
        ok,
        status_code: result.statusCode,
        latency_ms: result.latencyMs,
        ...(result.error === null ? {} : { error: result.error })
      } satisfies PartnerTestResult
    }, requireTenantAdmin)

    return {
      list,
      create,
      get,
      update,
      remove,
      suspend,
      reactivate,
      position,
      test,
      /** The CLI's `federation partners list`, in the tenant it provides as `CurrentTenant` (no signed-in caller). */
      operator: { list: listPartners }
    } as const
  })
}) {}
