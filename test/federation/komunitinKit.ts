import { HttpClient, HttpClientRequest } from "@effect/platform"
import { assert } from "@effect/vitest"
import { defaultCurrencyCode, type FederationScope } from "@timebank/domain"
import { Effect } from "effect"
import { SignJWT } from "jose"
import { generateKeyPairSync, type KeyObject, randomUUID } from "node:crypto"
import { encodeStellarPublicKey } from "../../packages/server/src/federation/komunitin/StellarKeys.js"
import { type ApiClient, expectOk } from "../fixtures/client.js"
import { community } from "../fixtures/community.js"
import { federationOn, makeApiKey, makePartner, type TestApiKey } from "../fixtures/federation.js"
import { fromIp, randomIp } from "../fixtures/servers.js"
import { optIn } from "./inboundKit.js"
import { rowsOf } from "./writesKit.js"

/** Helpers of the Komunitin JSON:API tests (test/federation/komunitin*.test.ts): decisions D16. */

export const JSON_API = "application/vnd.api+json"
export const PARTNER_NAME = "Komunitin TEST"
export const KEY_SCOPES: ReadonlyArray<FederationScope> = ["transactions:read", "transactions:write", "members:read"]

export const pathOf = (code: string, rest: string) => `/api/v1/federation/${code}${rest}`

/** A key pair as a Komunitin account holds one: `strkey` is its Stellar account id (`G…`). */
export interface StellarKeyPair {
  readonly strkey: string
  readonly privateKey: KeyObject
}

export const stellarKeyPair = (): StellarKeyPair => {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519")
  const raw = Buffer.from(publicKey.export({ format: "jwk" }).x!, "base64url")
  return { strkey: encodeStellarPublicKey(raw), privateKey }
}

/**
 * A Komunitin server's token as `createExternalToken` makes it (`accounting/src/controller/external-jwt.ts`):
 * EdDSA, `sub` the account's Stellar key, `aud` `komunitin-app`, an hour. Claims can be changed to break it.
 */
export const komunitinToken = (
  pair: StellarKeyPair,
  claims: { readonly aud?: string; readonly iat?: number; readonly exp?: number; readonly sub?: string } = {}
) =>
  Effect.promise(() => {
    const now = Math.floor(Date.now() / 1000)
    return new SignJWT({})
      .setProtectedHeader({ alg: "EdDSA" })
      .setIssuer("http://localhost:2025")
      .setAudience(claims.aud ?? "komunitin-app")
      .setIssuedAt(claims.iat ?? now)
      .setExpirationTime(claims.exp ?? now + 3600)
      .setSubject(claims.sub ?? pair.strkey)
      .sign(pair.privateKey)
  })

/**
 * A community with federation on, Mia Member opted in (Otto Other not), an active `komunitin` partner (pinning
 * `pinnedKeys` in `komunitin_public_keys`, when given) and a key bound to it: `code` is the community's currency
 * code, `account` Mia's federation account.
 */
export const komunitinCommunity = (
  options: {
    readonly pinnedKeys?: string
    readonly settings?: Record<string, unknown>
    readonly scopes?: ReadonlyArray<FederationScope>
  } = {}
) =>
  Effect.gen(function*() {
    const c = yield* community({ signIn: "token" })
    yield* federationOn(c.tenant)
    yield* optIn(c.member)
    const partner = yield* makePartner(c.tenant, {
      name: PARTNER_NAME,
      protocol: "komunitin",
      baseUrl: "http://127.0.0.1:2025",
      credentials: {
        access_token: "komunitin-user-token",
        ...(options.pinnedKeys === undefined ? {} : { komunitin_public_keys: options.pinnedKeys })
      },
      ...(options.settings === undefined ? {} : { settings: options.settings })
    })
    const key = yield* makeApiKey(c.tenant, {
      scopes: options.scopes ?? KEY_SCOPES,
      partnerId: partner.id,
      rateLimitPerMinute: 5000
    })
    const account = (yield* c.member.client.federationAccount.get()).data
    return { ...c, partner, key, code: defaultCurrencyCode(c.tenant.id), account }
  })

export interface Answer {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: unknown
}

/**
 * A JSON:API call as Komunitin sends it: `application/vnd.api+json`, the key (or a raw `bearer`, such as a Komunitin
 * token) as bearer, from an address of its own (the per-IP limits are the same for every test).
 */
export const jsonApi = (
  method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE",
  path: string,
  options: {
    readonly key?: TestApiKey
    readonly bearer?: string
    readonly body?: unknown
    readonly headers?: Record<string, string>
  } = {}
) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const bearer = options.bearer ?? options.key?.apiKey
    let request = HttpClientRequest.make(method)(path).pipe(
      HttpClientRequest.setHeaders({
        accept: JSON_API,
        ...fromIp(randomIp()),
        ...(bearer === undefined ? {} : { authorization: `Bearer ${bearer}` }),
        ...options.headers
      })
    )
    if (options.body !== undefined) {
      request = HttpClientRequest.bodyText(request, JSON.stringify(options.body), JSON_API)
    }
    const response = yield* client.execute(request)
    const text = yield* response.text
    return {
      status: response.status,
      headers: response.headers,
      body: text === "" ? undefined : JSON.parse(text) as unknown
    } satisfies Answer
  }).pipe(Effect.scoped, Effect.orDie)

/** The answer is Komunitin's media type with `status`. */
export const assertJsonApi = (res: Answer, status: number) => {
  assert.strictEqual(res.status, status, JSON.stringify(res.body))
  assert.match(res.headers["content-type"] ?? "", /^application\/vnd\.api\+json/)
}

/** The answer is Komunitin's one-error document: `status` (as a string too), `code` and, when given, `detail`. */
export const assertKomunitinError = (res: Answer, status: number, code: string, detail?: string) => {
  assertJsonApi(res, status)
  const errors = (res.body as { errors: ReadonlyArray<Record<string, unknown>> }).errors
  assert.strictEqual(errors.length, 1, JSON.stringify(res.body))
  const [error] = errors
  assert.deepStrictEqual(Object.keys(error!).sort(), ["code", "detail", "status", "title"])
  assert.strictEqual(error!["status"], String(status))
  assert.strictEqual(error!["code"], code, JSON.stringify(res.body))
  assert.isString(error!["title"])
  assert.isString(error!["detail"])
  if (detail !== undefined) assert.strictEqual(error!["detail"], detail)
  return error!
}

/** An account on another Komunitin server (`EXTR`), as fixture 06 names an external party. */
export const externalAccount = (id: string = randomUUID()) => ({
  type: "accounts" as const,
  id,
  meta: { external: true as const, href: `http://localhost:2025/EXTR/accounts/${id}` }
})

/** A transfer from an external payer to `payeeAccountId` (`amount` in hundredths of an hour). */
export const transferTo = (
  payeeAccountId: string,
  overrides: {
    readonly id?: string
    readonly amount?: number
    readonly state?: "new" | "committed"
    readonly description?: string
    readonly payer?: ReturnType<typeof externalAccount>
  } = {}
) => ({
  data: {
    type: "transfers",
    id: overrides.id ?? randomUUID(),
    attributes: {
      amount: overrides.amount ?? 150,
      meta: { description: overrides.description ?? "Garden help" },
      state: overrides.state ?? "committed"
    },
    relationships: {
      payer: { data: overrides.payer ?? externalAccount() },
      payee: { data: { type: "accounts", id: payeeAccountId } }
    }
  }
})

export const dataOf = <A = Record<string, unknown>>(res: Answer) => (res.body as { data: A }).data

export type Resource = {
  readonly type: string
  readonly id: string
  readonly attributes: Record<string, unknown>
  readonly links: { readonly self: string }
  readonly relationships: Record<string, { readonly data: Record<string, unknown> }>
}

export const walletOf = (who: { readonly client: ApiClient }) =>
  Effect.map(expectOk(who.client.wallet.get()), (res) => res.data.balance)

/** A fixture request with its ids replaced by ours (`payer` external unless the replay keeps it local). */
export const adapted = <D extends { readonly relationships: object }>(
  fixture: { readonly data: D },
  relationships: Record<string, unknown>
) => ({ data: { ...fixture.data, relationships: { ...fixture.data.relationships, ...relationships } } })

/** The amounts (cents) of the ledger transactions written under one idempotency key. */
export const ledgerAmounts = (tenantId: number, key: string) =>
  Effect.map(
    rowsOf((sql) =>
      sql<{ cents: number }>`
        SELECT (amount * 100)::int AS cents FROM ledger_transactions
        WHERE tenant_id = ${tenantId} AND idempotency_key = ${key}`
    ),
    (rows) => rows.map((r) => r.cents)
  )

/** A committed transfer with a chosen id and amount (hundredths) from `payer` to the community's member. */
export const committedWithId = (
  c: Effect.Effect.Success<ReturnType<typeof komunitinCommunity>>,
  id: string,
  payer: ReturnType<typeof externalAccount>,
  amount: number
) =>
  jsonApi("POST", pathOf(c.code, "/transfers"), {
    key: c.key,
    body: {
      data: {
        type: "transfers",
        id,
        attributes: { amount, meta: { description: "Garden help", origin: { app: "komunitin" } }, state: "committed" },
        relationships: { payer: { data: payer }, payee: { data: { type: "accounts", id: c.account.account_id } } }
      }
    }
  })
