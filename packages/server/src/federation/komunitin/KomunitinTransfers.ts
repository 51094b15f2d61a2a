import {
  CurrentTenant,
  FEDERATED_DESCRIPTION_MAX,
  FederationCaller,
  Forbidden,
  KomunitinBadRequest,
  KomunitinConflict,
  KomunitinInsufficientBalance,
  KomunitinTransactionError,
  type KomunitinTransferInput,
  type KomunitinTransferUpdate,
  NotFound,
  PermissionDenied,
  ValidationFailed
} from "@timebank/domain"
import { Effect, Option } from "effect"
import { createHash, randomUUID } from "node:crypto"
import { SharedMembers } from "../../identity/SharedMembers.js"
import { LedgerService } from "../../ledger/LedgerService.js"
import { AppConfig } from "../../platform/AppConfig.js"
import { FederationAccounts } from "../accounts/FederationAccounts.js"
import { PartnerDirectory, type PartnerRecord } from "../partners/PartnerDirectory.js"
import { floorCentsOf } from "../transactions/FederatedTransactions.js"
import { type KomunitinTransferRow, KomunitinTransfersRepo, present } from "./KomunitinTransfersRepo.js"
import { baseOf, currencyIdOf, descendingBy, pageLinks, pageOf, transferResource } from "./KomunitinViews.js"

/** JSON with object keys sorted at every depth: two `meta` objects with the same content hash alike. */
const canonical = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(canonical)
    : typeof value === "object" && value !== null
    ? Object.fromEntries(Object.keys(value).sort().map((k) => [k, canonical((value as Record<string, unknown>)[k])]))
    : value

const hashOf = (value: unknown) => createHash("sha256").update(JSON.stringify(canonical(value))).digest("hex")

const isExternal = (party: { readonly meta?: { readonly external?: true | "true" | undefined } | undefined }) =>
  party.meta?.external === true || party.meta?.external === "true"

/** What makes two creates of one `data.id` the same request (decisions D16): the whole transfer, not its envelope. */
export const komunitinRequestHash = ({ data }: KomunitinTransferInput) =>
  hashOf({
    amount: data.attributes.amount,
    meta: data.attributes.meta,
    state: data.attributes.state,
    payer: [data.relationships.payer.data.id.toLowerCase(), data.relationships.payer.data.meta?.href ?? null],
    payee: data.relationships.payee.data.id.toLowerCase()
  })

/** The ledger's idempotency key of a Komunitin transfer's credit. */
export const komunitinCreditKey = (partnerId: number, transferId: string) => `komunitin:${partnerId}:${transferId}`

const conflict = () => new KomunitinConflict({ message: "This transfer id was used with a different request" })
const transferNotFound = () => new NotFound({ message: "Transfer not found" })
const insufficient = () =>
  new KomunitinInsufficientBalance({ message: "The partner's account would go below its credit limit" })
const badMove = (from: string, to: string) =>
  new KomunitinTransactionError({ message: `A transfer cannot go from ${from} to ${to}` })

/** What a create did: `created` false for a repeat of an earlier request (200 with the transfer as it is now). */
export interface Created {
  readonly created: boolean
  readonly row: KomunitinTransferRow
}

/**
 * Transfers Komunitin partners send to our members (decisions D16), on the community of the caller's key or token.
 * `committed` credits the member from the partner's clearing account through the community's Ledger entity (key
 * `komunitin:<partner>:<id>`, so a repeat never pays twice); `new` waits for a PATCH. While the ledger works on a
 * credit the transfer is `submitted`, which keeps a concurrent delete from racing it.
 */
export class KomunitinTransfers extends Effect.Service<KomunitinTransfers>()("KomunitinTransfers", {
  dependencies: [
    KomunitinTransfersRepo.Default,
    FederationAccounts.Default,
    PartnerDirectory.Default,
    SharedMembers.Default
  ],
  effect: Effect.gen(function*() {
    const repo = yield* KomunitinTransfersRepo
    const accounts = yield* FederationAccounts
    const partners = yield* PartnerDirectory
    const members = yield* SharedMembers
    const ledger = yield* LedgerService
    const { publicUrl } = yield* AppConfig

    const resourceOf = (code: string) =>
      Effect.map(
        CurrentTenant,
        (tenant) => (row: KomunitinTransferRow) =>
          transferResource(baseOf(publicUrl, code), currencyIdOf(publicUrl, tenant.id), row)
      )

    /** The caller's partner (the gate checked it is active for writes; it may have changed since). */
    const activePartner = Effect.gen(function*() {
      const caller = yield* FederationCaller
      const partner = caller.partnerId === null ? Option.none() : yield* partners.find(caller.partnerId)
      if (Option.isNone(partner) || partner.value.status !== "active") {
        return yield* new PermissionDenied({ message: "Writes need an active partner" })
      }
      return partner.value
    })

    /**
     * Credits a `submitted` transfer and marks it `committed`. When the ledger refuses (past the credit limit), a
     * transfer created committed is forgotten (Komunitin creates nothing then) and one being PATCHed is `new` again.
     */
    const credit = (row: KomunitinTransferRow, partner: PartnerRecord, onRefusal: "forget" | "release") =>
      Effect.gen(function*() {
        const posted = yield* ledger.receiveFromPartner({
          partnerId: partner.id,
          floorCents: floorCentsOf(partner),
          recipientId: row.payee_user_id,
          cents: row.amount,
          description: row.meta.description.slice(0, FEDERATED_DESCRIPTION_MAX),
          key: komunitinCreditKey(partner.id, row.id),
          requestHash: row.request_hash,
          senderName: partner.name
        }).pipe(
          Effect.catchTags({
            InsufficientBalance: () =>
              Effect.zipRight(
                onRefusal === "forget" ? repo.forget(row.id) : repo.release(row.id),
                Effect.fail(insufficient())
              ),
            IdempotencyConflict: () => Effect.fail(conflict())
          })
        )
        const finished = yield* repo.finish(row.id, posted.transactionId)
        return Option.isSome(finished) ? finished.value : yield* present(yield* repo.find(row.id))
      })

    /** A create whose id is taken: the same request answers the transfer as it is now, another one 409. */
    const repeat = (row: KomunitinTransferRow, partner: PartnerRecord, requestHash: string, committed: boolean) =>
      Effect.gen(function*() {
        if (row.partner_id !== partner.id || row.request_hash !== requestHash) return yield* conflict()
        // A twin of this request stopped before its credit was done (or is doing it): the ledger's key pays once.
        const settled = row.state === "submitted" && committed ? yield* credit(row, partner, "forget") : row
        return { created: false, row: settled } satisfies Created
      })

    const create = Effect.fn("KomunitinTransfers.create")(function*(input: KomunitinTransferInput) {
      const { data } = input
      const payer = data.relationships.payer.data
      const payee = data.relationships.payee.data
      if (isExternal(payer) && isExternal(payee)) {
        return yield* new KomunitinBadRequest({ message: "Both payer and payee cannot be external" })
      }
      if (!isExternal(payer)) {
        return yield* new Forbidden({
          message: "A partner pays only from its own external account: the payer must be external"
        })
      }
      const href = payer.meta?.href
      if (href === undefined) {
        return yield* ValidationFailed.field("data.relationships.payer.data.meta.href", "an external payer has a href")
      }
      const partner = yield* activePartner
      const requestHash = komunitinRequestHash(input)
      const committed = data.attributes.state === "committed"
      const id = (data.id ?? randomUUID()).toLowerCase()
      const earlier = yield* repo.find(id)
      if (Option.isSome(earlier)) return yield* repeat(earlier.value, partner, requestHash, committed)

      const member = yield* accounts.memberByAccountId(payee.id)
      if (Option.isNone(member)) return yield* new NotFound({ message: "Account not found" })
      const inserted = yield* repo.insert({
        id,
        partnerId: partner.id,
        state: committed ? "submitted" : "new",
        amount: data.attributes.amount,
        meta: data.attributes.meta,
        payerAccountId: payer.id.toLowerCase(),
        payerHref: href,
        payeeUserId: member.value.row.user_id,
        payeeAccountId: member.value.row.account_id,
        requestHash
      })
      if (Option.isNone(inserted)) {
        return yield* repeat(yield* present(yield* repo.find(id)), partner, requestHash, committed)
      }
      const row = committed ? yield* credit(inserted.value, partner, "forget") : inserted.value
      return { created: true, row } satisfies Created
    })

    /** `new` → `committed`: the payee must still take federated payments. */
    const commit = (row: KomunitinTransferRow, partner: PartnerRecord) =>
      Effect.gen(function*() {
        if (Option.isNone(yield* members.find(row.payee_user_id))) {
          return yield* new KomunitinTransactionError({ message: "The payee's account no longer takes payments" })
        }
        const claimed = yield* repo.claim(row.id)
        if (Option.isSome(claimed)) return yield* credit(claimed.value, partner, "release")
        const now = yield* present(yield* repo.find(row.id))
        return now.state === "committed" ? now : yield* badMove(now.state, "committed")
      })

    const remove = (row: KomunitinTransferRow) =>
      Effect.gen(function*() {
        const deleted = yield* repo.markDeleted(row.id)
        if (Option.isSome(deleted)) return deleted.value
        const now = yield* present(yield* repo.find(row.id))
        return now.state === "deleted" ? now : yield* badMove(now.state, "deleted")
      })

    /** Whether the update asks to change anything but the state (a partner's transfer is not edited here). */
    const editsContent = (update: KomunitinTransferUpdate["data"], row: KomunitinTransferRow) => {
      const attributes = update.attributes
      const payer = update.relationships?.payer?.data.id
      const payee = update.relationships?.payee?.data.id
      return (attributes?.amount !== undefined && attributes.amount !== row.amount) ||
        (attributes?.meta !== undefined && hashOf(attributes.meta) !== hashOf(row.meta)) ||
        (payer !== undefined && payer.toLowerCase() !== row.payer_account_id) ||
        (payee !== undefined && payee.toLowerCase() !== row.payee_account_id)
    }

    const update = Effect.fn("KomunitinTransfers.update")(function*(id: string, input: KomunitinTransferUpdate) {
      const partner = yield* activePartner
      const found = yield* repo.findOwn(partner.id, id.toLowerCase())
      if (Option.isNone(found)) return yield* transferNotFound()
      const row = found.value
      if (input.data.id !== undefined && input.data.id.toLowerCase() !== row.id) {
        return yield* new KomunitinBadRequest({ message: "Route 'id' does not match with resource 'id'" })
      }
      if (editsContent(input.data, row)) {
        return yield* new KomunitinBadRequest({ message: "Only the state of a partner's transfer changes here" })
      }
      const target = input.data.attributes?.state
      if (target === undefined || target === row.state) return row
      if (target === "committed" && (row.state === "new" || row.state === "submitted")) {
        return yield* commit(row, partner)
      }
      if (target === "deleted" && row.state === "new") return yield* remove(row)
      return yield* badMove(row.state, target)
    })

    /** The caller's transfers, Komunitin's offset page (`created` ascending unless `sort=-created`). */
    const list = Effect.fn("KomunitinTransfers.list")(function*(
      params: Parameters<typeof pageOf>[0],
      originalUrl: string
    ) {
      const caller = yield* FederationCaller
      const page = pageOf(params)
      const rows = caller.partnerId === null
        ? []
        : yield* repo.page(caller.partnerId, { ...page, newestFirst: descendingBy(params, "created") })
      return { links: pageLinks(publicUrl, originalUrl, page, rows.length), rows }
    })

    const get = Effect.fn("KomunitinTransfers.get")(function*(id: string) {
      const caller = yield* FederationCaller
      const row = caller.partnerId === null ? Option.none() : yield* repo.findOwn(caller.partnerId, id.toLowerCase())
      return Option.isSome(row) ? row.value : yield* transferNotFound()
    })

    return { create, update, list, get, resourceOf } as const
  })
}) {}
