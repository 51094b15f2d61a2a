import type { DiagnoseCheck, DiagnoseCheckName } from "./FederationProtocol.js"
import { isSuccess, type PartnerResponse, quoteAnswer } from "./PartnerHttp.js"

/** How far the partner's `Date` header may lie from our clock (decisions D16). */
export const CLOCK_SKEW_SECONDS = 60

export const check = (name: DiagnoseCheckName, ok: boolean, detail: string): DiagnoseCheck => ({ name, ok, detail })

/** `reachability`: the partner answered at all (any HTTP status), quoting the answer. */
export const reachabilityCheck = (response: PartnerResponse): DiagnoseCheck =>
  check("reachability", response.statusCode !== null, quoteAnswer(response))

/** A check that holds for a 2xx answer, quoting it. */
export const answeredCheck = (name: DiagnoseCheckName, response: PartnerResponse): DiagnoseCheck =>
  check(name, isSuccess(response), quoteAnswer(response))

/** `clock_skew`: the partner's `Date` header within ±60 s of ours. */
export const clockSkewCheck = (response: PartnerResponse, nowMillis = Date.now()): DiagnoseCheck => {
  const date = response.headers["date"]
  if (response.statusCode === null) return check("clock_skew", false, "no answer to read a Date header from")
  if (date === undefined) return check("clock_skew", false, "the answer has no Date header")
  const at = Date.parse(date)
  if (Number.isNaN(at)) return check("clock_skew", false, `Date: ${date} is not a date`)
  const skew = Math.round((at - nowMillis) / 1000)
  return check(
    "clock_skew",
    Math.abs(skew) <= CLOCK_SKEW_SECONDS,
    `Date: ${date} (${skew >= 0 ? "+" : ""}${skew} s from our clock; ±${CLOCK_SKEW_SECONDS} s allowed)`
  )
}
