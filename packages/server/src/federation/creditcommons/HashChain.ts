import { createHash } from "node:crypto"

/** What of a Credit Commons transaction the chain hashes: payer, payee, metadata and workflow are left out. */
export interface HashedTransaction {
  readonly uuid: string
  readonly state: string
  readonly entries: ReadonlyArray<{ readonly quant: number; readonly description: string }>
  readonly version?: number | undefined
}

/** The text hashed: `last|uuid|state|q1|d1|q2|d2…|version`, as Komunitin's `makeHash` joins it. */
export const hashedText = (lastHash: string, tx: HashedTransaction): string =>
  [
    lastHash,
    tx.uuid,
    tx.state,
    // JavaScript's number formatting (`0.1`, `14`), exactly as the peer prints the quant it received.
    tx.entries.map((e) => `${String(e.quant)}|${e.description}`).join("|"),
    // A missing version is an empty last field (a trailing `|`), as `Array.join` prints `undefined`.
    tx.version === undefined ? "" : String(tx.version)
  ].join("|")

/** The chain's next hash after `tx` (decisions D16): md5 hex of {@link hashedText}, UTF-8. */
export const nextHash = (lastHash: string, tx: HashedTransaction): string =>
  createHash("md5").update(hashedText(lastHash, tx), "utf8").digest("hex")

/** Which seed a chain descends from, stored next to it to notice that the admin set a new seed. */
export const seedDigest = (seed: string): string => createHash("sha256").update(seed, "utf8").digest("hex")
