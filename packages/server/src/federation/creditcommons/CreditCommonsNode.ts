import {
  type CreditCommonsAccountSummary,
  CreditCommonsAmbiguousNode,
  CreditCommonsBadRequest,
  type CreditCommonsHeaders,
  type CreditCommonsRelayed,
  CreditCommonsTransaction,
  CreditCommonsUnauthorized,
  CurrentTenant,
  fromCents,
  NotFound,
  type Tenant
} from "@timebank/domain"
import { Effect, Either, Option, ParseResult, Schema } from "effect"
import { createHash } from "node:crypto"
import { LedgerService } from "../../ledger/LedgerService.js"
import { FederationAccounts, isUuid } from "../accounts/FederationAccounts.js"
import { federationDisabled } from "../auth/FederationAccessLive.js"
import { PartnerDirectory, type PartnerRecord } from "../partners/PartnerDirectory.js"
import { FederationSwitches } from "../switches/FederationSwitches.js"
import { floorCentsOf } from "../transactions/FederatedTransactions.js"
import { CreditCommonsChains } from "./CreditCommonsChains.js"
import { ccSettingsOf, type CreditCommonsSettings, namesNode } from "./CreditCommonsSettings.js"
import { nextHash } from "./HashChain.js"
import { nodeNameOf, planRelay, remotePartiesOf } from "./RelayPlan.js"

export const WELCOME = "Welcome to the Credit Commons federation protocol."

/** A caller that passed the cc-node check: its partner and the hash it presented (not yet compared). */
interface CcCaller {
  readonly tenant: Tenant
  readonly partner: PartnerRecord
  readonly seed: string
  readonly paths: CreditCommonsSettings
  readonly lastHash: string
  /** The `cc-node-trace` we answer: the caller's trace (else its node name), then `<` our node's name. */
  readonly trace: string
}

const unauthorized = (message: string) => new CreditCommonsUnauthorized({ message })
const badRequest = (message: string) => new CreditCommonsBadRequest({ message })
const hashMismatch = (lastHash: string) =>
  unauthorized(`value of last-hash header ${JSON.stringify(lastHash)} does not match our records.`)

/** JSON with object keys sorted: jsonb gives a stored body back in its own key order. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v)

const firstIssue = (error: ParseResult.ParseError) => {
  const [issue] = ParseResult.ArrayFormatter.formatErrorSync(error)
  if (issue === undefined) return "The transaction is not valid."
  return issue.path.length === 0 ? issue.message : `${issue.path.join(".")}: ${issue.message}`
}

const decodeTransaction = Schema.decodeUnknownEither(CreditCommonsTransaction)

const relayed = (tx: CreditCommonsTransaction): CreditCommonsRelayed => ({
  data: tx.entries,
  meta: { secs_valid_left: 0 }
})

/**
 * Our community's Credit Commons node (decisions D16), in Komunitin's dialect: `{CODE}` names the community, the
 * `cc-node` header the partner (the active `credit_commons` partner whose `peer_node_path` ends in it), and
 * `last-hash` must be the chain's current hash with that partner. A relay credits our member's net gain from the
 * partner's clearing account through the Ledger entity and advances the chain, both under the chain's lock. Needs
 * `LedgerService` from the app.
 */
export class CreditCommonsNode extends Effect.Service<CreditCommonsNode>()("CreditCommonsNode", {
  dependencies: [
    CreditCommonsChains.Default,
    FederationAccounts.Default,
    FederationSwitches.Default,
    PartnerDirectory.Default
  ],
  effect: Effect.gen(function*() {
    const chains = yield* CreditCommonsChains
    const accounts = yield* FederationAccounts
    const switches = yield* FederationSwitches
    const partners = yield* PartnerDirectory
    const ledger = yield* LedgerService

    /** The partner `ccNode` names, among the community's active Credit Commons partners that are set up. */
    const partnerNamed = (ccNode: string) =>
      Effect.gen(function*() {
        const candidates = yield* chains.activePartners
        const usable = yield* Effect.forEach(candidates, (row) =>
          Effect.gen(function*() {
            const paths = ccSettingsOf(row.settings)
            const partner = yield* partners.find(row.id)
            const credentials = yield* partners.credentials(row.id)
            const seed = Option.flatMap(credentials, (c) => Option.fromNullable(c["hash_seed"]))
            return paths === undefined || Option.isNone(partner) || Option.isNone(seed)
              ? []
              : [{ partner: partner.value, paths, seed: seed.value }]
          }))
        const grafted = usable.flat()
        if (grafted.length === 0) {
          return yield* unauthorized("This currency has not (yet) been grafted onto any CreditCommons tree.")
        }
        const named = grafted.filter((p) => namesNode(ccNode, p.paths.peerNodePath))
        if (named.length === 0) {
          return yield* unauthorized(`cc-node ${JSON.stringify(ccNode)} is not our trunkward node.`)
        }
        if (named.length > 1) {
          return yield* new CreditCommonsAmbiguousNode({
            message: `cc-node ${JSON.stringify(ccNode)} names more than one of our partners.`
          })
        }
        return named[0]!
      })

    /**
     * In order: the community (404), the switches (503), the headers (401), the partner (401, 409). The hash is
     * compared by the caller: a relay compares it under the chain's lock.
     */
    const caller = (code: string, headers: CreditCommonsHeaders) =>
      Effect.gen(function*() {
        const tenant = yield* accounts.tenantOfCode(code)
        if (Option.isNone(tenant)) return yield* new NotFound({ message: `Currency ${code} not found` })
        if (!(yield* switches.openFor(tenant.value, "transactions"))) return yield* federationDisabled
        const ccNode = headers["cc-node"]
        if (ccNode === undefined || ccNode === "") return yield* unauthorized("cc-node header is required.")
        const lastHash = headers["last-hash"]
        if (lastHash === undefined || lastHash === "") return yield* unauthorized("last-hash header is required.")
        const found = yield* Effect.provideService(partnerNamed(ccNode), CurrentTenant, tenant.value)
        return {
          tenant: tenant.value,
          partner: found.partner,
          seed: found.seed,
          paths: found.paths,
          lastHash,
          trace: `${headers["cc-node-trace"] ?? ccNode}, <${nodeNameOf(found.paths.ourNodePath)}`
        } satisfies CcCaller
      })

    /** A caller whose hash is the chain's current one, read without the lock (reads only). */
    const authenticated = (code: string, headers: CreditCommonsHeaders) =>
      Effect.gen(function*() {
        const c = yield* caller(code, headers)
        const current = yield* Effect.provideService(
          chains.currentHash({ partnerId: c.partner.id, seed: c.seed }),
          CurrentTenant,
          c.tenant
        )
        if (c.lastHash !== current) return yield* hashMismatch(c.lastHash)
        return c
      })

    const welcome = (code: string, headers: CreditCommonsHeaders) =>
      Effect.map(authenticated(code, headers), (c) => ({ body: { message: WELCOME }, trace: c.trace }))

    const requestHashOf = (tx: CreditCommonsTransaction, userId: number, cents: number) =>
      createHash("sha256").update(canonical({ entries: tx.entries, userId, cents })).digest("hex")

    /** Receives one relay: the same one again with its preceding hash answers as before and credits nothing. */
    const relay = (code: string, headers: CreditCommonsHeaders, body: unknown) =>
      Effect.gen(function*() {
        const c = yield* caller(code, headers)
        const decoded = decodeTransaction(body)
        const answer = yield* chains.withChain({ partnerId: c.partner.id, seed: c.seed }, (current) =>
          Effect.gen(function*() {
            if (Either.isRight(decoded)) {
              const tx = decoded.right
              const earlier = yield* chains.relayOf(c.partner.id, tx.uuid)
              if (
                Option.isSome(earlier) && earlier.value.direction === "in" &&
                earlier.value.hash_before === c.lastHash && canonical(earlier.value.body) === canonical(tx)
              ) {
                return { result: relayed(tx) }
              }
              if (c.lastHash !== current) {
                return yield* hashMismatch(c.lastHash)
              }
              if (Option.isSome(earlier)) {
                return yield* badRequest(`Transaction ${tx.uuid} already exists.`)
              }
            } else if (c.lastHash !== current) {
              return yield* hashMismatch(c.lastHash)
            }
            if (Either.isLeft(decoded)) {
              return yield* badRequest(firstIssue(decoded.left))
            }
            const tx = decoded.right
            const plan = planRelay(tx, c.paths.ourNodePath)
            if (Either.isLeft(plan)) {
              return yield* badRequest(plan.left)
            }
            const { accountCode, netCents } = plan.right
            const member = yield* accounts.memberByCode(accountCode)
            if (Option.isNone(member)) {
              return yield* new NotFound({ message: `local party ${accountCode} not found on ${c.paths.ourNodePath}` })
            }
            const posted = yield* ledger.receiveFromPartner({
              partnerId: c.partner.id,
              floorCents: floorCentsOf(c.partner),
              recipientId: member.value.id,
              cents: netCents,
              description: plan.right.description,
              key: `cc:${c.partner.id}:${tx.uuid}`,
              requestHash: requestHashOf(tx, member.value.id, netCents),
              senderName: `${plan.right.remoteAddress} (${c.partner.name})`
            }).pipe(
              Effect.catchTags({
                InsufficientBalance: () =>
                  badRequest("This relay would take the partner's clearing account past its credit limit."),
                IdempotencyConflict: () =>
                  badRequest(`Transaction ${tx.uuid} already exists.`)
              })
            )
            return {
              result: relayed(tx),
              advance: {
                uuid: tx.uuid,
                direction: "in" as const,
                hashAfter: nextHash(current, tx),
                body: tx,
                localUserId: member.value.id,
                netCents,
                transactionId: posted.transactionId
              }
            }
          })).pipe(Effect.provideService(CurrentTenant, c.tenant))
        return { body: answer, trace: c.trace }
      })

    /** `GET /account?acc_path=`: the account's relays with this partner, in hours. */
    const account = (code: string, headers: CreditCommonsHeaders, accPath: string | undefined) =>
      Effect.gen(function*() {
        const c = yield* authenticated(code, headers)
        if (accPath === undefined || accPath === "") return yield* badRequest("acc_path query parameter is required.")
        const summary = Effect.gen(function*() {
          const member = yield* accounts.memberByCode(accPath)
          if (Option.isNone(member)) return yield* new NotFound({ message: `Account ${accPath} not found` })
          const rows = yield* chains.accountRelays(c.partner.id, member.value.id)
          let grossIn = 0
          let grossOut = 0
          let entries = 0
          const remote = new Set<string>()
          for (const row of rows) {
            if (row.net_cents > 0) grossIn += row.net_cents
            else grossOut -= row.net_cents
            const tx = Schema.decodeUnknownOption(CreditCommonsTransaction)(row.body)
            if (Option.isSome(tx)) {
              entries += tx.value.entries.length
              remotePartiesOf(tx.value.entries, c.paths.ourNodePath).forEach((p) => remote.add(p))
            }
          }
          return {
            trades: rows.length,
            entries,
            gross_in: fromCents(grossIn),
            gross_out: fromCents(grossOut),
            partners: remote.size,
            pending: 0,
            balance: fromCents(grossIn - grossOut)
          } satisfies CreditCommonsAccountSummary
        })
        return { body: yield* Effect.provideService(summary, CurrentTenant, c.tenant), trace: c.trace }
      })

    /** `PATCH /transaction/{uuid}/{state}`: relays commit at once, so there is no state to move to. */
    const transition = (code: string, headers: CreditCommonsHeaders, uuid: string) =>
      Effect.gen(function*() {
        const c = yield* authenticated(code, headers)
        const known = isUuid(uuid)
          ? yield* Effect.provideService(chains.relayOf(c.partner.id, uuid.toLowerCase()), CurrentTenant, c.tenant)
          : Option.none()
        if (Option.isNone(known)) return yield* new NotFound({ message: `Transfer ${uuid} not found` })
        return yield* badRequest("not implemented yet")
      })

    return { welcome, relay, account, transition } as const
  })
}) {}
