import { Effect } from "effect"
import { nextHash } from "../../../packages/server/src/federation/creditcommons/HashChain.js"
import { rawRequest } from "../../fixtures/TestApp.js"
import { type FakePeer, fakePeer, type PeerAnswer, type PeerRequest } from "./fakePeer.js"

/**
 * A Komunitin Credit Commons node on 127.0.0.1 (credit-commons.md §2–§4): `GET {base}/` and
 * `POST {base}/transaction/relay` under `/{CODE}/cc`, last-hash authentication with Komunitin's 401 texts, and its
 * own chain: a relay it accepts advances it to md5(`last|uuid|state|q|d…|version`), a relay it sends advances it
 * on our 201. One trunkward node (us) only, as Komunitin grafts one.
 */

export interface CcTransaction {
  readonly uuid: string
  readonly state: string
  readonly workflow: string
  readonly entries: ReadonlyArray<{
    readonly payer: string
    readonly payee: string
    readonly quant: number
    readonly description: string
    readonly metadata?: Record<string, unknown>
  }>
  readonly version?: number
}

export interface CreditCommonsPeer {
  readonly peer: FakePeer
  /** `http://127.0.0.1:<port>/<CODE>/cc`: the partner's `base_url`. */
  readonly baseUrl: string
  /** The peer's chain hash now. */
  lastHash: string
  /** The relays the peer accepted from us, in order. */
  readonly accepted: Array<CcTransaction>
  /**
   * What the peer answers after its own handling (which has already advanced its chain for an accepted relay):
   * replace it to lose the answer ("hang") or to answer something else.
   */
  after: (answer: PeerAnswer, request: PeerRequest) => PeerAnswer
  /** The peer relays `tx` to our node `/api/v1/federation/{code}/cc`, advancing its chain on a 201. */
  readonly relayTo: (code: string, tx: CcTransaction) => ReturnType<typeof rawRequest>
}

const errors = (status: number, message: string): PeerAnswer => ({ status, body: { errors: [message] } })

/**
 * A Credit Commons peer whose node is `peerNodePath` (it sends its last segment as `cc-node`), which accepts only
 * `trunkwardNode` (our `cc-node`), starting from `seed`.
 */
export const creditCommonsPeer = (options: {
  readonly seed: string
  readonly trunkwardNode: string
  readonly peerNodePath: string
  readonly code?: string
}) =>
  Effect.gen(function*() {
    const basePath = `/${options.code ?? "TEST"}/cc`
    const state = {
      lastHash: options.seed,
      accepted: [] as Array<CcTransaction>,
      after: (answer: PeerAnswer, _request: PeerRequest): PeerAnswer => answer
    }

    const own = (request: PeerRequest): PeerAnswer => {
      const path = request.path.split("?")[0]!
      if (!path.startsWith(basePath)) return errors(404, `Currency not found`)
      const rest = path.slice(basePath.length)
      const ccNode = request.headers["cc-node"]
      if (typeof ccNode !== "string" || ccNode === "") return errors(401, "cc-node header is required.")
      const lastHash = request.headers["last-hash"]
      if (typeof lastHash !== "string" || lastHash === "") return errors(401, "last-hash header is required.")
      if (ccNode !== options.trunkwardNode) {
        return errors(401, `cc-node ${JSON.stringify(ccNode)} is not our trunkward node.`)
      }
      if (lastHash !== state.lastHash) {
        return errors(401, `value of last-hash header ${JSON.stringify(lastHash)} does not match our records.`)
      }
      if (request.method === "GET" && (rest === "/" || rest === "")) {
        return { status: 200, body: { message: "Welcome to the Credit Commons federation protocol." } }
      }
      if (request.method === "POST" && rest === "/transaction/relay") {
        const tx = request.json as CcTransaction
        state.lastHash = nextHash(lastHash, tx)
        state.accepted.push(tx)
        return { status: 201, body: { data: tx.entries, meta: { secs_valid_left: 0 } } }
      }
      return errors(404, "Not found")
    }

    const peer = yield* fakePeer((request) => state.after(own(request), request))
    const nodeName = options.peerNodePath.slice(options.peerNodePath.lastIndexOf("/") + 1)

    const result: CreditCommonsPeer = {
      peer,
      baseUrl: `${peer.url}${basePath}`,
      get lastHash() {
        return state.lastHash
      },
      set lastHash(hash: string) {
        state.lastHash = hash
      },
      accepted: state.accepted,
      get after() {
        return state.after
      },
      set after(f: (answer: PeerAnswer, request: PeerRequest) => PeerAnswer) {
        state.after = f
      },
      relayTo: (code, tx) =>
        Effect.gen(function*() {
          const sent = state.lastHash
          const response = yield* rawRequest("POST", `/api/v1/federation/${code}/cc/transaction/relay`, {
            headers: { "cc-node": nodeName, "last-hash": sent },
            body: JSON.stringify(tx, null, 2)
          })
          if (response.status === 201 || response.status === 200) state.lastHash = nextHash(sent, tx)
          return response
        })
    }
    return result
  })
