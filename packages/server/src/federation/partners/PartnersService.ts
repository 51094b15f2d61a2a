import {
  type CreatePartner,
  CurrentTenant,
  FederationStateConflict,
  fromCents,
  NotFound,
  offsetMeta,
  type PartnerDiagnosis,
  type PartnerPosition,
  type PartnersParams,
  type PartnerTestResult,
  type UpdatePartner,
  ValidationFailed,
  type ValidationIssue
} from "@timebank/domain"
import { Array as Arr, Effect, Option } from "effect"
import { randomUUID } from "node:crypto"
import { LedgerService } from "../../ledger/LedgerService.js"
import { offsetPage } from "../../platform/Paging.js"
import { requireTenantAdmin } from "../../platform/Policy.js"
import { SecretBox } from "../../platform/SecretBox.js"
import { PartnerDiagnose } from "../diagnose/PartnerDiagnose.js"
import { isSuccess, outboundCredentials, signedPost } from "../outbound/SignedPost.js"
import type { FederationProtocol } from "../protocols/FederationProtocol.js"
import { FederationProtocols } from "../protocols/FederationProtocols.js"
import { PartnerDirectory } from "./PartnerDirectory.js"
import { PartnerRepo, type PartnerRow, type StatusChange } from "./PartnerRepo.js"
import { partnerCreditLimit, partnerView } from "./PartnerViews.js"

export const DEFAULT_PARTNERS_PER_PAGE = 20

/** Where the test call goes: the partner's webhook URL, else its `webhooks/test` route (decisions D13a). */
export const testUrlOf = (partner: { readonly base_url: string; readonly webhook_url: string | null }) =>
  partner.webhook_url ?? `${partner.base_url.replace(/\/+$/, "")}/api/v1/federation/webhooks/test`

const notFound = () => NotFound.of("Partner")

/**
 * What is wrong with a partner's configuration for its protocol (decisions D16): `credentialKeys` must be exactly
 * the protocol's required names plus any of its optional ones — or none at all, a partner still being set up;
 * `settings` as the protocol checks them. Undefined: not being changed, not checked.
 */
const configurationIssues = (
  protocol: FederationProtocol,
  input: {
    readonly credentialKeys: ReadonlyArray<string> | undefined
    readonly settings: Readonly<Record<string, unknown>> | undefined
  }
): Array<ValidationIssue> => {
  const keys = input.credentialKeys ?? []
  const known = [...protocol.requiredCredentials, ...protocol.optionalCredentials]
  const credentials = keys.length === 0 ? [] : [
    ...keys.filter((k) => !known.includes(k)).map((k) => ({
      field: `credentials.${k}`,
      message: `is not a credential of ${protocol.name} partners (${known.join(", ")})`
    })),
    ...protocol.requiredCredentials.filter((k) => !keys.includes(k)).map((k) => ({
      field: `credentials.${k}`,
      message: `is required for ${protocol.name} partners`
    }))
  ]
  return [...credentials, ...(input.settings === undefined ? [] : protocol.settingsIssues(input.settings))]
}

const checkConfiguration = (protocol: FederationProtocol, input: Parameters<typeof configurationIssues>[1]) => {
  const issues = configurationIssues(protocol, input)
  return Arr.isNonEmptyArray(issues) ? Effect.fail(new ValidationFailed({ issues })) : Effect.void
}

/** A non-native partner's `/test` answer from its diagnose run: `error` names each failed check. */
const testResultOf = (diagnosis: PartnerDiagnosis, latencyMs: number): PartnerTestResult => {
  const failed = diagnosis.checks.filter((c) => !c.ok)
  return {
    ok: diagnosis.ok,
    status_code: null,
    latency_ms: latencyMs,
    ...(diagnosis.ok
      ? {}
      : {
        error: failed.length === 0
          ? "the protocol ran no checks"
          : failed.map((c) => `${c.name} failed: ${c.detail}`).join("; ")
      })
  }
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
  dependencies: [
    PartnerRepo.Default,
    PartnerDirectory.Default,
    SecretBox.Default,
    FederationProtocols.Default,
    PartnerDiagnose.Default
  ],
  effect: Effect.gen(function*() {
    const repo = yield* PartnerRepo
    const directory = yield* PartnerDirectory
    const box = yield* SecretBox
    const protocols = yield* FederationProtocols
    const diagnoser = yield* PartnerDiagnose

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
      const { page, perPage } = offsetPage(params, DEFAULT_PARTNERS_PER_PAGE)
      const { rows, total } = yield* repo.list({ status: params.status, page, perPage })
      return { data: rows.map(partnerView), meta: offsetMeta(page, perPage, total) }
    })

    const list = (params: PartnersParams) => requireTenantAdmin(listPartners(params))

    const create = Effect.fn("Partners.create")(function*(input: CreatePartner) {
      const credentials = input.credentials ?? {}
      yield* checkConfiguration(protocols.of(input.protocol_type), {
        credentialKeys: Object.keys(credentials),
        settings: input.settings ?? {}
      })
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
      // A new protocol checks what the partner already has; otherwise only what changes is checked.
      const turned = input.protocol_type !== undefined
      yield* checkConfiguration(protocols.of(input.protocol_type ?? row.protocol_type), {
        credentialKeys: input.credentials !== undefined
          ? Object.keys(input.credentials)
          : turned
          ? row.credential_keys
          : undefined,
        settings: input.settings !== undefined
          ? mergeSettings(row.settings, input.settings)
          : turned
          ? row.settings
          : undefined
      })
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

    /** The diagnose checks of a partner of the current community (decisions D16); nothing changes. */
    const diagnoseIn = Effect.fn("Partners.diagnose")(function*(id: number) {
      const partner = yield* Effect.flatMap(
        directory.find(id),
        Option.match({ onNone: () => Effect.fail(notFound()), onSome: Effect.succeed })
      )
      return yield* diagnoser.run(partner, yield* CurrentTenant)
    })

    const diagnose = (id: number) => requireTenantAdmin(diagnoseIn(id))

    /**
     * The `test` of decisions D13a: native partners get the signed `test` webhook, the others the diagnose checks
     * (D16). Success activates a `pending` or `failed` partner; a failure changes nothing.
     */
    const test = Effect.fn("Partners.test")(function*(id: number) {
      const row = yield* found(id)
      const tenant = yield* CurrentTenant
      if (row.protocol_type !== "native") {
        const started = Date.now()
        const diagnosis = yield* diagnoseIn(id)
        if (diagnosis.ok) yield* repo.activateAfterTest(row.id)
        return testResultOf(diagnosis, Date.now() - started)
      }
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
      diagnose,
      /** The CLI's `federation partners list|diagnose`, in the tenant it provides as `CurrentTenant` (no caller). */
      operator: { list: listPartners, diagnose: diagnoseIn }
    } as const
  })
}) {}
