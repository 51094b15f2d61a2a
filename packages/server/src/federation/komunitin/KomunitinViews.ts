import type {
  KomunitinAccount,
  KomunitinAccountListParams,
  KomunitinListParams,
  KomunitinPageLinks,
  KomunitinTransfer,
  Tenant
} from "@timebank/domain"
import { createHash } from "node:crypto"
import type { KomunitinTransferRow } from "./KomunitinTransfersRepo.js"

/**
 * Komunitin's JSON:API resources as its serializers shape them (`accounting/src/server/serialize.ts`), for this
 * community (decisions D16). `base` is `<PUBLIC_URL>/api/v1/federation/<CODE>`.
 */

export const baseOf = (publicUrl: string, code: string) => `${publicUrl.replace(/\/+$/, "")}/api/v1/federation/${code}`

/**
 * The currency's id: Komunitin currencies have a UUID, ours is the community. Derived (name-based, as a version 5
 * UUID is) from the server's address and the tenant, so it stays the same when the community changes its code.
 */
export const currencyIdOf = (publicUrl: string, tenantId: number) => {
  const bytes = createHash("sha1").update(`timebank-currency:${publicUrl.replace(/\/+$/, "")}:${tenantId}`).digest()
  bytes[6] = (bytes[6]! & 0x0f) | 0x50
  bytes[8] = (bytes[8]! & 0x3f) | 0x80
  const hex = bytes.subarray(0, 16).toString("hex")
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

const currencyRelationship = (currencyId: string) => ({ data: { type: "currencies" as const, id: currencyId } })

/** One unit is a hundredth of an hour: `scale` 2 (and `decimals` 2 to show), `rate` 1/1 hour. */
export const currencyResource = (base: string, currencyId: string, code: string, tenant: Tenant) => ({
  type: "currencies" as const,
  id: currencyId,
  attributes: {
    code,
    status: "active" as const,
    name: "hour",
    namePlural: "hours",
    symbol: "h",
    decimals: 2 as const,
    scale: 2 as const,
    rate: { n: 1 as const, d: 1 as const },
    created: new Date(tenant.created_at.epochMillis).toISOString(),
    updated: new Date(tenant.updated_at.epochMillis).toISOString()
  },
  links: { self: `${base}/currency` }
})

/** A member's account: its code and status, never a balance (decisions D16). */
export const accountResource = (
  base: string,
  currencyId: string,
  account: { readonly id: string; readonly code: string }
): KomunitinAccount => ({
  type: "accounts",
  id: account.id,
  attributes: { code: account.code, status: "active" },
  links: { self: `${base}/accounts/${account.id}` },
  relationships: { currency: currencyRelationship(currencyId) }
})

/** A partner's transfer: the payer keeps its external meta, the payee (ours) has none; no `hash` (no Stellar). */
export const transferResource = (base: string, currencyId: string, row: KomunitinTransferRow): KomunitinTransfer => ({
  type: "transfers",
  id: row.id,
  attributes: {
    state: row.state,
    amount: row.amount,
    meta: row.meta,
    created: row.created_at.toISOString(),
    updated: row.updated_at.toISOString()
  },
  links: { self: `${base}/transfers/${row.id}` },
  relationships: {
    payer: { data: { type: "accounts", id: row.payer_account_id, meta: { external: true, href: row.payer_href } } },
    payee: { data: { type: "accounts", id: row.payee_account_id } },
    currency: currencyRelationship(currencyId)
  }
})

// ---------------------------------------------------------------------------------------------------------------
// Collections: Komunitin's offset pages (`accounting/src/server/request.ts`, `handlers.ts`)

export const PAGE_SIZE_DEFAULT = 20
export const PAGE_SIZE_MAX = 200

const firstOf = (value: string | ReadonlyArray<string> | undefined) => typeof value === "string" ? value : value?.[0]

/** Like Komunitin: a size outside 1..200 or an offset below 0 that does not parse is ignored (the default). */
export const pageOf = (params: KomunitinListParams) => {
  const size = parseInt(firstOf(params["page[size]"]) ?? "", 10)
  const after = parseInt(firstOf(params["page[after]"]) ?? "", 10)
  return {
    size: size > 0 && size <= PAGE_SIZE_MAX ? size : PAGE_SIZE_DEFAULT,
    offset: after >= 0 ? after : 0
  }
}

/** Whether `sort` asks for `-<field>`; another field or none is the default, ascending. */
export const descendingBy = (params: KomunitinListParams, field: string) => firstOf(params.sort) === `-${field}`

/** The values of a filter: comma-separated, repeated, or both. */
export const filterValues = (value: KomunitinAccountListParams["filter[code]"]) =>
  [...new Set((typeof value === "string" ? [value] : value ?? []).flatMap((v) => v.split(",")))].filter((v) => v !== "")

/**
 * `first`, `prev`, `next` (null on a short page) and `last` (always null) as Komunitin builds them: the request's URL
 * on the public base, `page[after]` set (the other parameters re-encoded as `URLSearchParams` writes them).
 */
export const pageLinks = (
  publicUrl: string,
  originalUrl: string,
  page: { readonly offset: number; readonly size: number },
  count: number
): KomunitinPageLinks => {
  const at = (after: number | null) => {
    if (after === null) return null
    const url = new URL(`${publicUrl.replace(/\/+$/, "")}${originalUrl}`)
    url.searchParams.set("page[after]", String(after))
    return url.toString()
  }
  return {
    first: at(0)!,
    last: null,
    prev: at(page.offset >= page.size ? page.offset - page.size : null),
    next: at(count === page.size ? page.offset + page.size : null)
  }
}
