/**
 * The Credit Commons fixtures of the study of Komunitin's node (community-exchange-network/komunitin @a3de3ea),
 * copied verbatim from ../shared/federation/fixtures/credit-commons/ so the tests carry them.
 */

/** 01-relay.request.json (verbatim test: `generateCcTransaction(uuid, 'trunk/branch/twig/alice', false)`). */
export const TX_RELAY = {
  uuid: "3d8ebb9f-6a29-42cb-9d39-9ee0a6bf7f1c",
  state: "V",
  workflow: "|P-PC+CX+",
  entries: [
    {
      payee: "trunk/branch2/TEST0002",
      payer: "trunk/branch/twig/alice",
      quant: 0.01,
      description: "test long distance for 3 from leaf",
      metadata: { foo: "bar" }
    }
  ]
}

/** 02-relay-with-fees.request.json (the same helper with fees). */
export const TX_FEES = {
  uuid: "3d8ebb9f-6a29-42cb-9d39-9ee0a6bf7f1c",
  state: "V",
  workflow: "|P-PC+CX+",
  entries: [
    {
      payee: "trunk/branch2/TEST0002",
      payer: "trunk/branch/twig/alice",
      quant: 14,
      description: "test long distance for 3 from leaf",
      metadata: { foo: "bar" }
    },
    {
      payee: "trunk/branch/twig/admin",
      payer: "trunk/branch2/TEST0002",
      quant: 2,
      description: "Payee fee of 1 to twig/admin",
      metadata: {}
    },
    {
      payee: "trunk/branch/admin",
      payer: "trunk/branch2/TEST0002",
      quant: 3,
      description: "Payee fee of 1 to branch/admin",
      metadata: {}
    },
    {
      payee: "trunk/admin",
      payer: "trunk/branch2/TEST0002",
      quant: 1,
      description: "Payee fee of 1 to trunk/admin",
      metadata: {}
    }
  ]
}

/** 03-relay.response.201.json */
export const RELAY_201 = { data: TX_RELAY.entries, meta: { secs_valid_left: 0 } }

/** 04-hash-vectors.json */
export const HASH_VECTORS = [
  {
    case: "test 3.receive (no version field)",
    last_hash_before: "trunk",
    string_hashed: "trunk|3d8ebb9f-6a29-42cb-9d39-9ee0a6bf7f1c|V|0.01|test long distance for 3 from leaf|",
    md5_hex: "196bf56fdf9c2b747a20b8604b7b1f61"
  },
  {
    case: "fees variant (no version field)",
    last_hash_before: "trunk",
    string_hashed:
      "trunk|3d8ebb9f-6a29-42cb-9d39-9ee0a6bf7f1c|V|14|test long distance for 3 from leaf|2|Payee fee of 1 to twig/admin|3|Payee fee of 1 to branch/admin|1|Payee fee of 1 to trunk/admin|",
    md5_hex: "15bfc7d0cff9160fe34cf541b7da56c3"
  },
  {
    case: "with version:1",
    last_hash_before: "trunk",
    string_hashed: "trunk|3d8ebb9f-6a29-42cb-9d39-9ee0a6bf7f1c|V|0.01|test long distance for 3 from leaf|1",
    md5_hex: "0468cf7c904eafa6dd59cc295442f8dc"
  }
] as const

/** 05-account-summary.before.response.200.json */
export const ACCOUNT_BEFORE = { balance: 0, entries: 0, gross_in: 0, gross_out: 0, partners: 0, pending: 0, trades: 0 }

/** 06-account-summary.after.response.200.json */
export const ACCOUNT_AFTER = {
  balance: 0.01,
  entries: 1,
  gross_in: 0.01,
  gross_out: 0,
  partners: 0,
  pending: 0,
  trades: 1
}

/** 08..14: the error bodies, exactly. */
export const ERRORS = {
  ccNodeMissing: { errors: ["cc-node header is required."] },
  lastHashMissing: { errors: ["last-hash header is required."] },
  lastHashMismatch: { errors: ["value of last-hash header \"qwer\" does not match our records."] },
  wrongCcNode: { errors: ["cc-node \"bla\" is not our trunkward node."] },
  notGrafted: { errors: ["This currency has not (yet) been grafted onto any CreditCommons tree."] },
  transferNotFound: { errors: ["Transfer non-existing not found"] },
  patchNotImplemented: { errors: ["not implemented yet"] }
}

/** 17-outbound-relay.constructed.request.json (uuid illustrative) */
export const OUTBOUND_RELAY = {
  version: 1,
  uuid: "00000000-0000-4000-8000-000000000000",
  state: "V",
  workflow: "|P-PC+CX+",
  entries: [
    {
      payee: "trunk/branch2/TEST0002",
      payer: "trunk/EXTR0000",
      quant: 0.1,
      description: "Test transfer from trunk/EXTR0000 to trunk/branch2/TEST0002",
      metadata: {}
    }
  ]
}

/** 18-outbound-relay.constructed.headers.txt: the hash after that relay, seed `trunk`. */
export const OUTBOUND_HASH_AFTER = "f37cc0acde9af25e671c1d81bb8108ad"
