import { type Cents, type CreditCommonsTransaction, toCents } from "@timebank/domain"
import { Either } from "effect"

/** What a relayed transaction means for our ledger: one local account and what it gains. */
export interface RelayPlan {
  /** The local account's code (`CODE0042`): the address after `<our_node_path>/`. */
  readonly accountCode: string
  /** The local account's net gain in cents (> 0 for a relay we accept). */
  readonly netCents: Cents
  /** The main entry's description, the other entries folded in as `(+q payer desc)` / `(-q payee desc)`. */
  readonly description: string
  /** The remote party of the main entry (the one with the largest quant). */
  readonly remoteAddress: string
}

/** The node path an address lives on, with its trailing `/` (`trunk/branch2/` for `trunk/branch2/TEST0002`). */
export const ledgerOf = (address: string): string => {
  const slash = address.lastIndexOf("/")
  return slash < 0 ? "" : address.slice(0, slash + 1)
}

/** The last segment of a node path: how a node names itself in `cc-node`. */
export const nodeNameOf = (path: string): string => path.slice(path.lastIndexOf("/") + 1)

/** The remote side of each entry whose other side is local, in entry order. */
export const remotePartiesOf = (
  entries: ReadonlyArray<{ readonly payer: string; readonly payee: string }>,
  ourNodePath: string
) => entries.map((e) => (ledgerOf(e.payer) === `${ourNodePath}/` ? e.payee : e.payer))

/**
 * Komunitin's reading of an incoming transaction (`ccToLocal`): every entry has exactly one local party, all the
 * same account; the net gain must be positive. The texts of the refusals are Komunitin's.
 */
export const planRelay = (tx: CreditCommonsTransaction, ourNodePath: string): Either.Either<RelayPlan, string> => {
  const base = `${ourNodePath}/`
  let netCents = 0
  let localParty: string | undefined
  for (const entry of tx.entries) {
    const payerLocal = ledgerOf(entry.payer) === base
    const payeeLocal = ledgerOf(entry.payee) === base
    if (payerLocal && payeeLocal) return Either.left("Payer and Payee cannot both be local")
    if (!payerLocal && !payeeLocal) return Either.left("Payer and Payee cannot both be remote")
    const party = payerLocal ? entry.payer.slice(base.length) : entry.payee.slice(base.length)
    if (localParty !== undefined && localParty !== party) {
      return Either.left("All entries must be to or from the same local account")
    }
    localParty = party
    netCents += payerLocal ? -toCents(entry.quant) : toCents(entry.quant)
  }
  if (localParty === undefined || netCents <= 0) {
    return Either.left("Net gain must be positive for incoming transaction")
  }
  const main = tx.entries.reduce((max, entry) => (entry.quant > max.quant ? entry : max))
  const extras = tx.entries.filter((e) => e !== main).map((e) => {
    const parts = ledgerOf(e.payer) === base
      ? [`-${String(e.quant)}`, e.payee, e.description]
      : [`+${String(e.quant)}`, e.payer, e.description]
    return `(${parts.filter((p) => p !== "").join(" ")})`
  }).join(", ")
  return Either.right({
    accountCode: localParty,
    netCents,
    description: main.description + (extras === "" ? "" : `\n${extras}`),
    remoteAddress: ledgerOf(main.payer) === base ? main.payee : main.payer
  })
}
