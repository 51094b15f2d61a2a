import { Schema } from "effect"
import { PATH_PARAM_NOT_FOUND } from "../http/Ids.js"
import { CURRENCY_PATH_PATTERN } from "./FederationAccountsApi.js"

/**
 * Komunitin's JSON:API resources as this community serves them (decisions D16): the currency, members' accounts and
 * the transfers Komunitin partners send. Amounts are integers in hundredths of an hour (`scale` 2, `rate` 1/1).
 */

/** A UUID of any version, as partners' account and transfer ids are. */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** A UUID of any version, as Komunitin's `isUUID()` takes account and transfer ids. */
export const KomunitinUuid = Schema.String.pipe(
  Schema.pattern(UUID_PATTERN, { message: () => "must be a UUID" })
).annotations({ format: "uuid" })

/** The largest amount taken: the ledger's 1 000 000 hours, in hundredths. */
export const KOMUNITIN_AMOUNT_MAX = 100_000_000

export const KomunitinAmount = Schema.Int.pipe(
  Schema.greaterThan(0, { message: () => "must be more than 0" }),
  Schema.lessThanOrEqualTo(KOMUNITIN_AMOUNT_MAX, { message: () => `must be at most ${KOMUNITIN_AMOUNT_MAX}` })
).annotations({ description: "Hundredths of an hour (the currency's `scale` is 2, its `rate` 1/1)" })

/** `attributes.meta`: an object with a string `description`; every other key is kept as sent. */
export const KomunitinTransferMeta = Schema.Struct(
  { description: Schema.String },
  Schema.Record({ key: Schema.String, value: Schema.Unknown })
)
export type KomunitinTransferMeta = typeof KomunitinTransferMeta.Type

/** `submitted`: being credited by our ledger (Komunitin's state for a transfer sent to its ledger). */
export const KomunitinTransferState = Schema.Literal("new", "submitted", "committed", "deleted")
export type KomunitinTransferState = typeof KomunitinTransferState.Type

// ---------------------------------------------------------------------------------------------------------------
// Path and query

/** `{CODE}`: four upper-case letters or digits; anything else names no community (404). */
export const KomunitinCode = Schema.String.pipe(Schema.pattern(CURRENCY_PATH_PATTERN)).annotations({
  description: "The community's currency code",
  message: () => ({ message: PATH_PARAM_NOT_FOUND, override: true })
})

export const KomunitinCodePath = Schema.Struct({ code: KomunitinCode })

export const KomunitinResourcePath = Schema.Struct({
  code: KomunitinCode,
  id: KomunitinUuid.annotations({ message: () => ({ message: PATH_PARAM_NOT_FOUND, override: true }) })
})

/** A query value as sent once or repeated; like Komunitin, values that do not parse are ignored, never refused. */
const QueryValue = Schema.Union(Schema.String, Schema.Array(Schema.String))

export const KomunitinListParams = Schema.Struct({
  "page[size]": Schema.optional(QueryValue).annotations({ description: "1 to 200, default 20" }),
  "page[after]": Schema.optional(QueryValue).annotations({ description: "Offset, default 0" }),
  sort: Schema.optional(QueryValue).annotations({
    description: "Transfers: `created` (default) or `-created`; accounts: `code` (default) or `-code`"
  })
})
export type KomunitinListParams = typeof KomunitinListParams.Type

export const KomunitinAccountListParams = Schema.Struct({
  ...KomunitinListParams.fields,
  "filter[code]": Schema.optional(QueryValue).annotations({
    description: "Account codes (`CODE` + the member's id), comma-separated"
  })
})
export type KomunitinAccountListParams = typeof KomunitinAccountListParams.Type

// ---------------------------------------------------------------------------------------------------------------
// What partners send

/** `relationships.<role>.data.meta` of an account on another server. */
const ExternalMeta = Schema.Struct({
  external: Schema.optional(Schema.Union(Schema.Literal(true), Schema.Literal("true"))),
  href: Schema.optional(Schema.NonEmptyTrimmedString.pipe(Schema.maxLength(2000)))
})

const AccountIdentifier = Schema.Struct({
  type: Schema.Literal("accounts"),
  id: KomunitinUuid,
  meta: Schema.optional(ExternalMeta)
})
export type KomunitinAccountIdentifier = typeof AccountIdentifier.Type

const CurrencyIdentifier = Schema.Struct({ type: Schema.Literal("currencies"), id: KomunitinUuid })

/** `POST /{CODE}/transfers`, fields in the order Komunitin validates them (the first problem is the one reported). */
export const KomunitinTransferInput = Schema.Struct({
  data: Schema.Struct({
    type: Schema.optional(Schema.Literal("transfers")),
    id: Schema.optional(KomunitinUuid).annotations({ description: "The transfer's id, chosen by the partner" }),
    attributes: Schema.Struct({
      meta: KomunitinTransferMeta,
      amount: KomunitinAmount,
      state: Schema.Literal("new", "committed"),
      hash: Schema.optional(Schema.String)
    }),
    relationships: Schema.Struct({
      payer: Schema.Struct({ data: AccountIdentifier }),
      payee: Schema.Struct({ data: AccountIdentifier }),
      currency: Schema.optional(Schema.Struct({ data: CurrencyIdentifier }))
    })
  })
})
export type KomunitinTransferInput = typeof KomunitinTransferInput.Type

/** `PATCH /{CODE}/transfers/{id}`: a state change (`hash`, a Stellar hash, is taken and not kept). */
export const KomunitinTransferUpdate = Schema.Struct({
  data: Schema.Struct({
    type: Schema.optional(Schema.Literal("transfers")),
    id: Schema.optional(KomunitinUuid),
    attributes: Schema.optional(Schema.Struct({
      meta: Schema.optional(KomunitinTransferMeta),
      amount: Schema.optional(KomunitinAmount),
      hash: Schema.optional(Schema.String),
      state: Schema.optional(Schema.Literal("new", "committed", "rejected", "deleted"))
    })),
    relationships: Schema.optional(Schema.Struct({
      payer: Schema.optional(Schema.Struct({ data: Schema.Struct({ id: KomunitinUuid }) })),
      payee: Schema.optional(Schema.Struct({ data: Schema.Struct({ id: KomunitinUuid }) }))
    }))
  })
})
export type KomunitinTransferUpdate = typeof KomunitinTransferUpdate.Type

// ---------------------------------------------------------------------------------------------------------------
// What this server answers

const Links = Schema.Struct({ self: Schema.String })
const CurrencyRelationship = Schema.Struct({ data: CurrencyIdentifier })

export const KomunitinCurrency = Schema.Struct({
  type: Schema.Literal("currencies"),
  id: KomunitinUuid,
  attributes: Schema.Struct({
    code: Schema.String,
    status: Schema.Literal("active"),
    name: Schema.String,
    namePlural: Schema.String,
    symbol: Schema.String,
    decimals: Schema.Literal(2),
    scale: Schema.Literal(2),
    rate: Schema.Struct({ n: Schema.Literal(1), d: Schema.Literal(1) }),
    created: Schema.String,
    updated: Schema.String
  }),
  links: Links
}).annotations({ identifier: "KomunitinCurrency" })

export const KomunitinAccount = Schema.Struct({
  type: Schema.Literal("accounts"),
  id: KomunitinUuid,
  attributes: Schema.Struct({ code: Schema.String, status: Schema.Literal("active") }),
  links: Links,
  relationships: Schema.Struct({ currency: CurrencyRelationship })
}).annotations({ identifier: "KomunitinAccount" })
export type KomunitinAccount = typeof KomunitinAccount.Type

const AccountRelationship = Schema.Struct({
  data: Schema.Struct({
    type: Schema.Literal("accounts"),
    id: Schema.String,
    meta: Schema.optional(Schema.Struct({ external: Schema.Literal(true), href: Schema.NullOr(Schema.String) }))
  })
})

export const KomunitinTransfer = Schema.Struct({
  type: Schema.Literal("transfers"),
  id: KomunitinUuid,
  attributes: Schema.Struct({
    state: KomunitinTransferState,
    amount: Schema.Int,
    meta: KomunitinTransferMeta,
    created: Schema.String,
    updated: Schema.String
  }),
  links: Links,
  relationships: Schema.Struct({
    payer: AccountRelationship,
    payee: AccountRelationship,
    currency: CurrencyRelationship
  })
}).annotations({ identifier: "KomunitinTransfer" })
export type KomunitinTransfer = typeof KomunitinTransfer.Type

/** `links` of a collection: offset pages; `last` is always null, `next` null on a short page. */
export const KomunitinPageLinks = Schema.Struct({
  first: Schema.String,
  last: Schema.Null,
  prev: Schema.NullOr(Schema.String),
  next: Schema.NullOr(Schema.String)
})
export type KomunitinPageLinks = typeof KomunitinPageLinks.Type

export const KomunitinDocument = <S extends Schema.Schema.Any>(data: S) => Schema.Struct({ data })

export const KomunitinCollection = <S extends Schema.Schema.Any>(item: S) =>
  Schema.Struct({ links: KomunitinPageLinks, data: Schema.Array(item) })
