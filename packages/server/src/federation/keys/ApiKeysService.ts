import {
  AlreadyRevoked,
  ApiKeyView,
  CreateApiKey,
  CreatedApiKey,
  type ListApiKeysParams,
  NotFound,
  offsetMeta,
  RATE_LIMIT_PER_MINUTE_DEFAULT,
  ValidationFailed,
  type ValidationIssue
} from "@timebank/domain"
import { Array as Arr, DateTime, Effect, Option } from "effect"
import { randomBytes } from "node:crypto"
import { offsetPage } from "../../platform/Paging.js"
import { requireTenantAdmin, TenantAdmin } from "../../platform/Policy.js"
import { SecretBox } from "../../platform/SecretBox.js"
import { decodeInput } from "../../platform/Validation.js"
import { PartnerDirectory } from "../partners/PartnerDirectory.js"
import { ApiKeyRepo, type ApiKeyRow } from "./ApiKeyRepo.js"
import { hashApiKey } from "./ApiKeyStore.js"

export const DEFAULT_API_KEYS_PER_PAGE = 20

/** `key_prefix`: the key's first characters, `tbk_` and 8 hex digits (decisions D13). */
export const KEY_PREFIX_LENGTH = 12

/** Fresh draws after a prefix collision (32 random bits each) before giving up as a defect. */
const INSERT_ATTEMPTS = 5

const secret = (prefix: "tbk_" | "tbs_") => `${prefix}${randomBytes(32).toString("hex")}`

const utc = (date: Date | null) => date === null ? null : DateTime.unsafeFromDate(date)

export const toApiKeyView = (row: ApiKeyRow): ApiKeyView =>
  ApiKeyView.make({
    id: row.id,
    name: row.name,
    key_prefix: row.key_prefix,
    scopes: row.scopes,
    rate_limit_per_minute: row.rate_limit_per_minute,
    signing: row.signing,
    status: row.status,
    partner_id: row.partner_id,
    expires_at: utc(row.expires_at),
    last_used_at: utc(row.last_used_at),
    revoked_at: utc(row.revoked_at),
    created_at: DateTime.unsafeFromDate(row.created_at)
  })

/**
 * Inbound API keys of the current tenant (decisions D13, D13a). The routes' methods need a tenant admin; `operator`
 * is the same work for the CLI, which has no signed-in caller and decodes its own input. A key is stored only as
 * its SHA-256 and its signing secret only sealed, so both are answered once, by `create`.
 */
export class ApiKeysService extends Effect.Service<ApiKeysService>()("FederationApiKeysService", {
  dependencies: [ApiKeyRepo.Default, SecretBox.Default, PartnerDirectory.Default],
  effect: Effect.gen(function*() {
    const repo = yield* ApiKeyRepo
    const partners = yield* PartnerDirectory
    const box = yield* SecretBox

    const found = (row: Option.Option<ApiKeyRow>) =>
      Option.match(row, { onNone: () => Effect.fail(NotFound.of("API key")), onSome: Effect.succeed })

    /** The rules the schema cannot check: a future expiry, a partner of this community. */
    const check = Effect.fn("ApiKeys.check")(function*(input: CreateApiKey) {
      const issues: Array<ValidationIssue> = []
      if (input.expires_at != null && input.expires_at.epochMillis <= Date.now()) {
        issues.push({ field: "expires_at", message: "must be in the future" })
      }
      if (input.partner_id != null && Option.isNone(yield* partners.find(input.partner_id))) {
        issues.push({ field: "partner_id", message: "is not a partner of this community" })
      }
      if (Arr.isNonEmptyArray(issues)) return yield* new ValidationFailed({ issues })
    })

    const createKey = Effect.fn("ApiKeys.create")(function*(input: CreateApiKey, createdBy: number | null) {
      yield* check(input)
      const signingSecret = input.signing === true ? Option.some(secret("tbs_")) : Option.none<string>()
      const sealed = Option.isSome(signingSecret) ? yield* box.seal(signingSecret.value) : null
      for (let attempt = 0; attempt < INSERT_ATTEMPTS; attempt++) {
        const apiKey = secret("tbk_")
        const stored = yield* repo.insert({
          name: input.name,
          keyPrefix: apiKey.slice(0, KEY_PREFIX_LENGTH),
          keyHash: hashApiKey(apiKey),
          scopes: Arr.dedupe(input.scopes),
          rateLimitPerMinute: input.rate_limit_per_minute ?? RATE_LIMIT_PER_MINUTE_DEFAULT,
          sealedSigningSecret: sealed,
          partnerId: input.partner_id ?? null,
          expiresAt: input.expires_at == null ? null : DateTime.toDate(input.expires_at),
          createdBy
        })
        if (Option.isSome(stored)) {
          return CreatedApiKey.make({
            ...toApiKeyView(stored.value),
            api_key: apiKey,
            ...Option.match(signingSecret, { onNone: () => ({}), onSome: (s) => ({ signing_secret: s }) })
          })
        }
      }
      return yield* Effect.dieMessage(`no free API key prefix after ${INSERT_ATTEMPTS} draws`)
    })

    const listKeys = Effect.fn("ApiKeys.list")(function*(params: ListApiKeysParams) {
      const { page, perPage } = offsetPage(params, DEFAULT_API_KEYS_PER_PAGE)
      const { rows, total } = yield* repo.page({ page, perPage, status: params.status })
      return { data: rows.map(toApiKeyView), meta: offsetMeta(page, perPage, total) }
    })

    const getKey = Effect.fn("ApiKeys.get")(function*(id: number) {
      return toApiKeyView(yield* found(yield* repo.findById(id)))
    })

    /** Takes effect at once: authentication reads keys uncached (`ApiKeyStore`). */
    const revokeKey = Effect.fn("ApiKeys.revoke")(function*(id: number) {
      const revoked = yield* repo.revoke(id)
      if (Option.isSome(revoked)) return toApiKeyView(revoked.value)
      yield* found(yield* repo.findById(id))
      return yield* new AlreadyRevoked({ message: "The API key is already revoked" })
    })

    return {
      create: Effect.fn("ApiKeys.createAsAdmin")(function*(input: CreateApiKey) {
        const admin = yield* TenantAdmin
        return yield* createKey(input, admin.userId)
      }, requireTenantAdmin),
      list: Effect.fn(function*(params: ListApiKeysParams) {
        yield* TenantAdmin
        return yield* listKeys(params)
      }, requireTenantAdmin),
      get: Effect.fn(function*(id: number) {
        yield* TenantAdmin
        return yield* getKey(id)
      }, requireTenantAdmin),
      revoke: Effect.fn(function*(id: number) {
        yield* TenantAdmin
        return yield* revokeKey(id)
      }, requireTenantAdmin),
      /** The CLI's `federation keys …`, in the tenant it provides as `CurrentTenant`. */
      operator: {
        create: (input: unknown) => Effect.flatMap(decodeInput(CreateApiKey)(input), (i) => createKey(i, null)),
        list: listKeys,
        revoke: revokeKey
      }
    } as const
  })
}) {}
