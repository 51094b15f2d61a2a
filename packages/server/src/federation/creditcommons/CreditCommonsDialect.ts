import { CREDIT_COMMONS_PATH } from "@timebank/domain"
import { Effect } from "effect"
import { errorEntriesOf, type WireDialect, withJsonBody } from "../../platform/WireDialect.js"

/**
 * Credit Commons routes answer errors as Komunitin does (decisions D16): `{"errors": ["<message>"]}` in plain
 * `application/json`, whoever produced them (the handler, the edge guard, the router's 404 and 405). A 422 of the
 * decoder is a 400, as every other invalid input is on a Credit Commons node.
 */
export const CreditCommonsDialect: WireDialect = {
  name: "credit-commons",
  matches: (path) => CREDIT_COMMONS_PATH.test(path),
  rewrite: (response) => {
    const entries = errorEntriesOf(response)
    if (entries === undefined) return Effect.succeed(response)
    const messages = entries.map((e) => (e.field === undefined ? e.message : `${e.field}: ${e.message}`))
    return Effect.succeed(
      withJsonBody(response, { errors: messages }, { status: response.status === 422 ? 400 : response.status })
    )
  }
}
