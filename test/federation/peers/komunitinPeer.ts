import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { type FakePeer, fakePeer, type PeerAnswer, type PeerRequest } from "./fakePeer.js"

/**
 * A Komunitin accounting server as our `komunitin` adapter meets it, built from
 * shared/federation/fixtures/komunitin (and komunitin.md): routes at the root under `/{CODE}/…`, the currency of
 * fixture 08 (scale 4, rate {n:1, d:10}: 100 000 units per hour; both configurable, also mid-test), transfers
 * validated like Komunitin's `isCreateTransfer` + `checkExact` (first error only, fixture 10 shape), the bearer
 * checked before the body (401 / 403 "Insufficient Scope", fixture 11 shape), 201 like fixture 04 with `meta` an
 * object, PATCH like fixture 05, lists like fixture 09. Balances are kept so that an over-limit payment is the real
 * 400 `InsufficientBalance`.
 */

export const KOMUNITIN_TOKEN = "komunitin-user-token-with-accounting-scope"
export const KOMUNITIN_READ_TOKEN = "komunitin-user-token-read-all-only"
export const PAYER_ACCOUNT = "86be4ba3-8303-4609-9105-2ac305f65d64"
export const PAYEE_ACCOUNT = "534d5a24-a88f-4f23-8ce5-da1330354844"
const CURRENCY_ID = "d10e351f-43a8-415b-8240-230b552b8804"

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export interface KomunitinAccount {
  readonly id: string
  readonly code: string
  balance: number
  creditLimit: number
  status: string
}

export interface KomunitinTransfer {
  readonly id: string
  state: string
  readonly amount: number
  readonly meta: unknown
  readonly payer: string
  readonly payee: string
  readonly created: string
  updated: string
}

export interface KomunitinPeer extends FakePeer {
  /** The currency, changeable by the test (fixture 08 by default). */
  readonly currency: { code: string; status: string; scale: number; rate: { n: number; d: number } }
  readonly accounts: Map<string, KomunitinAccount>
  readonly transfers: Map<string, KomunitinTransfer>
  /** Komunitin's own behaviour, for tests that wrap it (`peer.handle = (r) => … ?? peer.komunitin(r)`). */
  readonly komunitin: (request: PeerRequest) => PeerAnswer
}

const ERROR_TITLES: Record<string, string> = {
  BadRequest: "Bad Request",
  FieldValidationError: "Field validation Error",
  InsufficientBalance: "Insufficient Balance",
  Unauthorized: "Unauthorized",
  Forbidden: "Forbidden",
  InactiveCurrency: "Inactive Currency",
  NotFound: "Not Found"
}

const JSON_API = { "content-type": "application/vnd.api+json; charset=utf-8" }

/** A JSON:API error answer: one error, `status` a string (fixtures 10, 11). */
export const komunitinError = (status: number, code: string, detail: string): PeerAnswer => ({
  status,
  headers: JSON_API,
  body: { errors: [{ status: String(status), code, title: ERROR_TITLES[code] ?? code, detail }] }
})

const invalid = (field: string) =>
  komunitinError(400, "FieldValidationError", `Field ${field} is invalid in request body.`)

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** Fields `checkExact(isCreateTransfer())` knows; anything else is refused. */
const KNOWN = {
  data: ["type", "id", "attributes", "relationships"],
  attributes: ["meta", "amount", "state", "hash", "authorization", "created", "updated"],
  relationships: ["payer", "payee", "currency"],
  relationship: ["data"],
  identifier: ["type", "id", "meta"]
}

const unknownField = (body: Record<string, unknown>): string | undefined => {
  const extra = (value: unknown, known: ReadonlyArray<string>, path: string) =>
    isObject(value) ? Object.keys(value).filter((k) => !known.includes(k)).map((k) => `${path}.${k}`) : []
  const data = body["data"]
  const attributes = isObject(data) ? data["attributes"] : undefined
  const relationships = isObject(data) ? data["relationships"] : undefined
  const found = [
    ...Object.keys(body).filter((k) => k !== "data" && k !== "included"),
    ...extra(data, KNOWN.data, "data"),
    ...extra(attributes, KNOWN.attributes, "data.attributes"),
    ...extra(relationships, KNOWN.relationships, "data.relationships"),
    ...["payer", "payee", "currency"].flatMap((role) => {
      const relationship = isObject(relationships) ? relationships[role] : undefined
      const path = `data.relationships.${role}`
      return [
        ...extra(relationship, KNOWN.relationship, path),
        ...extra(isObject(relationship) ? relationship["data"] : undefined, KNOWN.identifier, `${path}.data`)
      ]
    })
  ]
  return found.length === 0 ? undefined : found.join(", ")
}

/** The first thing `isCreateTransfer` finds wrong, in its order, or undefined. */
const createProblem = (body: unknown): PeerAnswer | undefined => {
  if (!isObject(body) || !isObject(body["data"])) return invalid("data.attributes.meta")
  const data = body["data"]
  if (data["type"] !== undefined && data["type"] !== "transfers") return invalid("data.type")
  if (data["id"] !== undefined && (typeof data["id"] !== "string" || !UUID.test(data["id"]))) return invalid("data.id")
  const attributes = isObject(data["attributes"]) ? data["attributes"] : {}
  const meta = attributes["meta"]
  if (!isObject(meta) || typeof meta["description"] !== "string") return invalid("data.attributes.meta")
  const amount = attributes["amount"]
  if (typeof amount !== "number" || !Number.isInteger(amount) || amount <= 0) return invalid("data.attributes.amount")
  if (attributes["state"] !== "new" && attributes["state"] !== "committed") return invalid("data.attributes.state")
  const relationships = isObject(data["relationships"]) ? data["relationships"] : {}
  for (const role of ["payer", "payee"]) {
    const relationship = relationships[role]
    const identifier = isObject(relationship) ? relationship["data"] : undefined
    const id = isObject(identifier) ? identifier["id"] : undefined
    if (typeof id !== "string" || !UUID.test(id)) return invalid(`data.relationships.${role}.data.id`)
    if (isObject(identifier) && identifier["type"] !== "accounts") {
      return invalid(`data.relationships.${role}.data.type`)
    }
  }
  const unknown = unknownField(body)
  return unknown === undefined ? undefined : komunitinError(400, "FieldValidationError", `Unknown field(s): ${unknown}`)
}

const identifierId = (data: Record<string, unknown>, role: string): string => {
  const relationships = data["relationships"] as Record<string, Record<string, Record<string, string>>>
  return relationships[role]!["data"]!["id"]!
}

/** A Komunitin peer on 127.0.0.1 with the payer and payee accounts of fixture 01 (credit limit 10 000 000 units). */
export const komunitinPeer = (
  options: { readonly code?: string; readonly scale?: number; readonly rate?: { n: number; d: number } } = {}
) =>
  Effect.gen(function*() {
    const currency = {
      code: options.code ?? "TEST",
      status: "active",
      scale: options.scale ?? 4,
      rate: options.rate ?? { n: 1, d: 10 }
    }
    const accounts = new Map<string, KomunitinAccount>()
    const transfers = new Map<string, KomunitinTransfer>()
    const peer = yield* fakePeer(() => ({ status: 500 }))
    const base = () => `${peer.url}/${currency.code}`

    const addAccount = (id: string, n: number) =>
      accounts.set(id, {
        id,
        code: `${currency.code}${String(n).padStart(4, "0")}`,
        balance: 0,
        creditLimit: 10_000_000,
        status: "active"
      })
    addAccount(PAYER_ACCOUNT, 1)
    addAccount(PAYEE_ACCOUNT, 2)

    const currencyDoc = () => ({
      data: {
        type: "currencies",
        id: CURRENCY_ID,
        attributes: {
          code: currency.code,
          status: currency.status,
          name: "Testy",
          namePlural: "Testies",
          symbol: "T$",
          decimals: 2,
          scale: currency.scale,
          rate: currency.rate,
          keys: { issuer: "GDKSSHKCKOHZOACYN4OQVEU7LA66W7FAKZ24KWDXBAAFWDFOJSEXI33M" },
          created: "2024-10-17T10:29:39.329Z",
          updated: "2024-10-17T10:29:41.231Z"
        },
        links: { self: `${base()}/currency` },
        relationships: { admins: { data: [{ type: "users", id: "1", meta: { external: true, href: null } }] } }
      }
    })

    const accountDoc = (a: KomunitinAccount) => ({
      data: {
        type: "accounts",
        id: a.id,
        attributes: {
          code: a.code,
          status: a.status,
          balance: a.balance,
          creditLimit: a.creditLimit,
          key: "GAC43NE5IG2ACKONXRCTFXO4H2VWJ3WIRUOGDJGFZ7QSPZT65SV7VGAD",
          created: "2024-10-17T10:29:59.118Z",
          updated: "2024-10-17T10:30:07.130Z"
        },
        links: { self: `${base()}/accounts/${a.id}` },
        relationships: { currency: { data: { type: "currencies", id: CURRENCY_ID } } }
      }
    })

    const transferResource = (t: KomunitinTransfer) => ({
      type: "transfers",
      id: t.id,
      attributes: {
        state: t.state,
        amount: t.amount,
        meta: t.meta,
        created: t.created,
        updated: t.updated,
        ...(t.state === "committed" ? { hash: "97d1fdd294f571a45d04376984427ff6add15c18c471ff8780ab91b8b11a7374" } : {})
      },
      links: { self: `${base()}/transfers/${t.id}` },
      relationships: {
        payer: { data: { type: "accounts", id: t.payer } },
        payee: { data: { type: "accounts", id: t.payee } },
        currency: { data: { type: "currencies", id: CURRENCY_ID } }
      }
    })

    /** Moves the money or answers InsufficientBalance (the transfer then ends `failed`, as Komunitin leaves it). */
    const commit = (t: KomunitinTransfer): PeerAnswer | undefined => {
      const payer = accounts.get(t.payer)!
      const payee = accounts.get(t.payee)!
      if (payer.balance - t.amount < -payer.creditLimit) {
        t.state = "failed"
        return komunitinError(400, "InsufficientBalance", `Insufficient balance in account ${payer.code}`)
      }
      payer.balance -= t.amount
      payee.balance += t.amount
      t.state = "committed"
      t.updated = new Date().toISOString()
      return undefined
    }

    /** The bearer of a request: undefined when it may go on, else Komunitin's 401/403. */
    const authProblem = (request: PeerRequest, write: boolean): PeerAnswer | undefined => {
      const header = request.headers["authorization"]
      const token = typeof header === "string" && header.startsWith("Bearer ") ? header.slice(7) : undefined
      if (token === undefined) return komunitinError(401, "Unauthorized", "Unauthorized")
      if (token !== KOMUNITIN_TOKEN && token !== KOMUNITIN_READ_TOKEN) {
        return komunitinError(401, "Unauthorized", "Invalid Token")
      }
      if (write && token !== KOMUNITIN_TOKEN) return komunitinError(403, "Forbidden", "Insufficient Scope")
      return undefined
    }

    /** Bodies are JSON only with `application/vnd.api+json` or `application/json` (express.json's types). */
    const bodyOf = (request: PeerRequest): unknown => {
      const type = String(request.headers["content-type"] ?? "").split(";")[0]!.trim()
      return type === "application/vnd.api+json" || type === "application/json" ? request.json : undefined
    }

    const create = (request: PeerRequest): PeerAnswer => {
      const body = bodyOf(request)
      const problem = createProblem(body)
      if (problem !== undefined) return problem
      const data = (body as { data: Record<string, unknown> }).data
      const attributes = data["attributes"] as { amount: number; meta: unknown; state: string }
      const id = typeof data["id"] === "string" ? data["id"] : randomUUID()
      if (transfers.has(id)) return komunitinError(400, "BadRequest", `Transfer with id ${id} already exists`)
      const [payer, payee] = [identifierId(data, "payer"), identifierId(data, "payee")]
      if (payer === payee) return komunitinError(400, "BadRequest", "Payer and payee must be different")
      for (const account of [payer, payee]) {
        if (!accounts.has(account)) return komunitinError(404, "NotFound", `Account ${account} not found`)
      }
      const now = new Date().toISOString()
      const transfer: KomunitinTransfer = {
        id,
        state: "new",
        amount: attributes.amount,
        meta: attributes.meta,
        payer,
        payee,
        created: now,
        updated: now
      }
      transfers.set(id, transfer)
      if (attributes.state === "committed") {
        const failed = commit(transfer)
        if (failed !== undefined) return failed
      }
      return { status: 201, headers: JSON_API, body: { data: transferResource(transfer) } }
    }

    const update = (request: PeerRequest, id: string): PeerAnswer => {
      const body = bodyOf(request)
      const data = isObject(body) ? body["data"] : undefined
      if (!isObject(data)) return invalid("data")
      if (data["id"] !== undefined && data["id"] !== id) {
        return komunitinError(400, "BadRequest", "Route 'id' does not match with resource 'id")
      }
      const transfer = transfers.get(id)
      if (transfer === undefined) return komunitinError(404, "NotFound", `Transfer ${id} not found`)
      const state = isObject(data["attributes"]) ? data["attributes"]["state"] : undefined
      if (state !== undefined && !["new", "committed", "rejected", "deleted"].includes(String(state))) {
        return invalid("data.attributes.state")
      }
      if (state === "committed" && transfer.state === "new") {
        const failed = commit(transfer)
        if (failed !== undefined) return failed
      } else if (state !== undefined && state !== transfer.state) {
        return komunitinError(400, "BadRequest", `Invalid state transition from ${transfer.state} to ${String(state)}`)
      }
      return { status: 200, headers: JSON_API, body: { data: transferResource(transfer) } }
    }

    const list = (request: PeerRequest): PeerAnswer => {
      const query = new URLSearchParams(request.path.split("?")[1] ?? "")
      const asked = Number(query.get("page[size]") ?? 20)
      const size = Number.isInteger(asked) && asked >= 1 && asked <= 200 ? asked : 20
      const after = Number(query.get("page[after]") ?? 0)
      const all = [...transfers.values()]
      const page = all.slice(after, after + size)
      const link = (offset: number) => `${base()}/transfers?page%5Bsize%5D=${size}&page%5Bafter%5D=${offset}`
      return {
        status: 200,
        headers: JSON_API,
        body: {
          links: {
            first: link(0),
            last: null,
            prev: after >= size ? link(after - size) : null,
            next: page.length === size ? link(after + size) : null
          },
          data: page.map(transferResource)
        }
      }
    }

    const komunitin = (request: PeerRequest): PeerAnswer => {
      const path = request.path.split("?")[0]!
      if (request.method === "GET" && path === "/") {
        return { status: 200, headers: JSON_API, body: { message: "Welcome to the Komunitin accounting API." } }
      }
      const [code, resource, id, ...rest] = path.split("/").slice(1)
      if (code !== currency.code) return komunitinError(404, "NotFound", `Currency ${code} not found`)
      const route = `${request.method} ${resource}${id === undefined ? "" : "/:id"}${rest.length > 0 ? "/…" : ""}`
      if (resource === "transfers" && currency.status !== "active") {
        return komunitinError(403, "InactiveCurrency", `Currency ${currency.code} is not active`)
      }
      switch (route) {
        case "GET currency":
          return { status: 200, headers: JSON_API, body: currencyDoc() }
        case "GET accounts/:id": {
          const account = accounts.get(id!)
          return account === undefined
            ? komunitinError(404, "NotFound", `Account ${id} not found`)
            : { status: 200, headers: JSON_API, body: accountDoc(account) }
        }
        case "GET transfers":
          return authProblem(request, false) ?? list(request)
        case "POST transfers":
          return authProblem(request, true) ?? create(request)
        case "PATCH transfers/:id":
          return authProblem(request, true) ?? update(request, id!)
        default:
          return komunitinError(404, "NotFound", `Cannot ${request.method} ${path}`)
      }
    }
    peer.handle = komunitin
    return Object.assign(peer, { currency, accounts, transfers, komunitin }) as KomunitinPeer
  })
