import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { ApiError, httpError, NotFound } from "../http/ApiError.js"
import { hasTwoDecimals } from "../ledger/Credits.js"
import { FederationDisabled } from "./FederationErrors.js"
import { KomunitinCode } from "./KomunitinResources.js"

/** Where a community's Credit Commons node answers: `/api/v1/federation/{CODE}/cc` (decisions D16). */
export const CREDIT_COMMONS_PATH = /^\/api\/v1\/federation\/[^/]+\/cc(\/.*)?$/

const CC = "/api/v1/federation/:code/cc"

/** The last-hash authentication failed: Komunitin's texts, one per cause (decisions D16). */
export class CreditCommonsUnauthorized
  extends ApiError<CreditCommonsUnauthorized>()("CreditCommonsUnauthorized", "CC_UNAUTHORIZED", 401)
{}

/** A relay, account query or state change the node cannot take (400, as Komunitin answers them). */
export class CreditCommonsBadRequest
  extends ApiError<CreditCommonsBadRequest>()("CreditCommonsBadRequest", "CC_BAD_REQUEST", 400)
{}

/** `cc-node` names more than one active Credit Commons partner of the community. */
export class CreditCommonsAmbiguousNode
  extends ApiError<CreditCommonsAmbiguousNode>()("CreditCommonsAmbiguousNode", "CC_AMBIGUOUS_NODE", 409)
{}

/** A Credit Commons node path (`trunk/branch2`): segments without `/` or white space. */
export const CC_NODE_PATH = /^[^/\s]+(\/[^/\s]+)*$/

/** A Credit Commons account address (`trunk/branch2/TEST0002`): a node path and the account, two segments or more. */
export const CC_ADDRESS = /^[^/\s]+(\/[^/\s]+)+$/

const Quant = Schema.Number.pipe(
  Schema.finite({ message: () => "must be a number" }),
  Schema.nonNegative({ message: () => "must not be negative" }),
  Schema.lessThanOrEqualTo(1_000_000, { message: () => "must be at most 1000000" }),
  Schema.filter(hasTwoDecimals, { message: () => "must have at most 2 decimals (hours)" })
).annotations({ description: "Hours, at most 2 decimals" })

/** One entry of a relayed transaction; fields beyond these are kept and echoed. */
export const CreditCommonsEntry = Schema.Struct(
  {
    payer: Schema.String.annotations({ description: "Absolute address, `<node path>/<account>`" }),
    payee: Schema.String.annotations({ description: "Absolute address, `<node path>/<account>`" }),
    quant: Quant,
    description: Schema.String,
    metadata: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
  },
  Schema.Record({ key: Schema.String, value: Schema.Unknown })
)
export type CreditCommonsEntry = typeof CreditCommonsEntry.Type

/** `POST …/cc/transaction/relay`: a transaction a trunkward node relays to us (decisions D16). */
export const CreditCommonsTransaction = Schema.Struct({
  uuid: Schema.UUID.annotations({
    description: "Becomes our id of the transaction",
    message: () => ({ message: "must be a UUID", override: true })
  }),
  state: Schema.Literal("V", "C").annotations({
    description: "Committed at once whichever (`_C-` only)",
    message: () => ({ message: "must be V or C", override: true })
  }),
  workflow: Schema.String,
  entries: Schema.Array(CreditCommonsEntry).pipe(Schema.minItems(1, { message: () => "must not be empty" })),
  version: Schema.optional(Schema.Number.pipe(Schema.finite({ message: () => "must be a number" })))
})
export type CreditCommonsTransaction = typeof CreditCommonsTransaction.Type

/** The 201 of a relay: the entries as received; it committed, so nothing is left to validate. */
export const CreditCommonsRelayed = Schema.Struct({
  data: Schema.Array(CreditCommonsEntry),
  meta: Schema.Struct({ secs_valid_left: Schema.Literal(0) })
})
export type CreditCommonsRelayed = typeof CreditCommonsRelayed.Type

/** `GET …/cc/account`: one of our accounts' trade with this partner, in hours. */
export const CreditCommonsAccountSummary = Schema.Struct({
  trades: Schema.Int.annotations({ description: "Relays with this partner, both ways" }),
  entries: Schema.Int.annotations({ description: "Entries of those relays" }),
  gross_in: Schema.Number,
  gross_out: Schema.Number,
  partners: Schema.Int.annotations({ description: "Distinct remote accounts traded with" }),
  pending: Schema.Number.annotations({ description: "Always 0: relays commit at once" }),
  balance: Schema.Number.annotations({ description: "gross_in − gross_out" })
})
export type CreditCommonsAccountSummary = typeof CreditCommonsAccountSummary.Type

export const CreditCommonsWelcome = Schema.Struct({ message: Schema.String })

export const CreditCommonsHeaders = Schema.Struct({
  "cc-node": Schema.optional(Schema.String).annotations({
    description: "The calling node's name: the last segment (or more) of the partner's `peer_node_path`"
  }),
  "last-hash": Schema.optional(Schema.String).annotations({
    description: "The chain's current hash with this partner (its `hash_seed` before the first relay)"
  }),
  "cc-node-trace": Schema.optional(Schema.String)
})
export type CreditCommonsHeaders = typeof CreditCommonsHeaders.Type

const CodePath = Schema.Struct({ code: KomunitinCode })

const AUTH = "Headers `cc-node` and `last-hash` (401 with Komunitin's texts: header missing, not grafted, not our " +
  "trunkward node, hash does not match)"

/**
 * A community's Credit Commons node as Komunitin speaks it (decisions D16). Every answer is `application/json`;
 * errors are `{"errors": ["<message>"]}` (the envelope shown here is rewritten at the edge). The community is
 * `{CODE}` (unknown → 404); the partner is the active `credit_commons` one whose `peer_node_path` ends in `cc-node`.
 * The platform switch, the whitelist and the `transactions` toggle apply (503).
 */
export class CreditCommonsApi extends HttpApiGroup.make("creditCommons")
  .annotate(OpenApi.Title, "Federation: Credit Commons node")
  .annotate(
    OpenApi.Description,
    "Komunitin's dialect of the Credit Commons protocol: a trunkward node relays transactions that commit at once " +
      "(`_C-` workflow). Authentication is the per-partner hash chain (`cc-node` + `last-hash`), no bearer"
  )
  .add(
    HttpApiEndpoint.get("welcome", CC)
      .annotate(OpenApi.Summary, "Welcome (checks last-hash authentication)")
      .annotate(OpenApi.Description, `\`{"message": "Welcome to the Credit Commons federation protocol."}\`. ${AUTH}`)
      .setPath(CodePath)
      .setHeaders(CreditCommonsHeaders)
      .addSuccess(CreditCommonsWelcome)
  )
  .add(
    HttpApiEndpoint.post("relay", `${CC}/transaction/relay`)
      .annotate(OpenApi.Summary, "Receive a relayed transaction")
      .annotate(
        OpenApi.Description,
        "`{uuid, state: V|C, workflow, entries: [{payer, payee, quant (hours), description, metadata}], version?}`. " +
          "Each entry has exactly one party `<our_node_path>/<account code>`, all the same opted-in member; the net " +
          "gain (> 0) is credited from the partner's clearing account and the chain advances. 201 echoes the " +
          "entries with `meta.secs_valid_left: 0`. The same relay sent again with its preceding hash answers the " +
          `same 201 and credits nothing. 400: invalid body, net gain ≤ 0, past the credit limit; 404: unknown ` +
          `account. ${AUTH}`
      )
      .setPath(CodePath)
      .setHeaders(CreditCommonsHeaders)
      .setPayload(Schema.Unknown.annotations({
        title: "CreditCommonsTransaction",
        description: "Checked after authentication, so that a stranger learns nothing of what a node accepts"
      }))
      .addSuccess(CreditCommonsRelayed, { status: 201 })
  )
  .add(
    HttpApiEndpoint.get("account", `${CC}/account`)
      .annotate(OpenApi.Summary, "An account's trade with this partner")
      .annotate(
        OpenApi.Description,
        `\`acc_path\` is the bare account code (\`CODE0042\`); amounts in hours, only this partner's relays. ${AUTH}`
      )
      .setPath(CodePath)
      .setHeaders(CreditCommonsHeaders)
      .setUrlParams(Schema.Struct({ acc_path: Schema.optional(Schema.String) }))
      .addSuccess(CreditCommonsAccountSummary)
  )
  .add(
    HttpApiEndpoint.patch("transition", `${CC}/transaction/:uuid/:state`)
      .annotate(OpenApi.Summary, "Change a transaction's state (not implemented)")
      .annotate(
        OpenApi.Description,
        `Relays commit at once, so there is nothing to change: 400 \`not implemented yet\` (Komunitin answers 500); ` +
          `404 for a transaction this partner never relayed. ${AUTH}`
      )
      .setPath(Schema.Struct({ code: KomunitinCode, uuid: Schema.String, state: Schema.String }))
      .setHeaders(CreditCommonsHeaders)
      .addSuccess(Schema.Struct({}))
  )
  .addError(httpError(CreditCommonsUnauthorized))
  .addError(httpError(CreditCommonsBadRequest))
  .addError(httpError(CreditCommonsAmbiguousNode))
  .addError(httpError(NotFound))
  .addError(httpError(FederationDisabled))
{}
