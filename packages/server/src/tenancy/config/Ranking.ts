import type { SqlClient, Statement } from "@effect/sql"
import type { AlgorithmSetting } from "@timebank/domain"

/** A hybrid order's recency half-life: a listing or member this much older weighs half as much for recency. */
export const RANK_HALF_LIFE_DAYS = 14

const HALF_LIFE_SECONDS = RANK_HALF_LIFE_DAYS * 86_400

/** The search term as `to_tsquery` input: each word exactly, and each word as a prefix (`garde` finds `garden`). */
export interface TextTerms {
  readonly exact: string
  readonly prefix: string
}

/**
 * Letters and digits only, so that the query text never carries a tsquery operator; at most 10 distinct words,
 * joined by OR (a row matching more of them ranks higher).
 */
export const textTerms = (search: string | undefined): TextTerms | undefined => {
  const words = [...new Set((search ?? "").toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])].slice(0, 10)
  return words.length === 0
    ? undefined
    : { exact: words.join(" | "), prefix: words.map((word) => `${word}:*`).join(" | ") }
}

/**
 * A ranked order (decisions D17 `/config/algorithms`): score = relevance weight × text rank + recency weight ×
 * recency, highest first, id breaking ties. `anchor` (epoch ms) is "now" for recency, fixed for a whole walk
 * through the pages so that a row's score never changes between them.
 */
export interface Ranked {
  readonly recency: number
  readonly relevance: number
  readonly anchor: number
  readonly terms: TextTerms | undefined
}

/**
 * The order an area's setting gives a list: `undefined` means newest first, the order every list had before it
 * was configurable — for `recency`, and for `relevance` and `hybrid` without a search term (with nothing to match,
 * a text rank says nothing). `relevance` is the text rank alone; `hybrid` weighs `weights.recency` and
 * `weights.relevance` (1 each unless set).
 */
export const rankedBy = (setting: AlgorithmSetting, search: string | undefined, anchor: number): Ranked | undefined => {
  const terms = textTerms(search)
  if (terms === undefined || setting.algorithm === "recency") return undefined
  return setting.algorithm === "relevance"
    ? { recency: 0, relevance: 1, anchor, terms }
    : {
      recency: setting.weights["recency"] ?? 1,
      relevance: setting.weights["relevance"] ?? 1,
      anchor,
      terms
    }
}

/**
 * The score of a row as SQL (float8, deterministic for the same inputs, so a page's last score can be compared
 * again on the next page). Text rank: the mean of the exact and the prefix match's `ts_rank` (normalised to
 * 0..1, option 32) over `vector`; recency: 2^(-age / half-life) at `anchor`, clamped so that `exp` can neither
 * overflow nor underflow.
 */
export const rankScore = (
  sql: SqlClient.SqlClient,
  ranked: Ranked,
  vector: Statement.Fragment,
  createdAt: Statement.Fragment
): Statement.Fragment => {
  const relevance = ranked.terms === undefined
    ? sql`0::float8`
    : sql`((ts_rank(${vector}, to_tsquery('simple', ${ranked.terms.exact}), 32)
        + ts_rank(${vector}, to_tsquery('simple', ${ranked.terms.prefix}), 32))::float8 / 2)`
  const recency = sql`exp(greatest(-700::float8, least(50::float8,
    extract(epoch FROM ${createdAt} - to_timestamp(${ranked.anchor}::float8 / 1000))::float8
      * ln(2::float8) / ${HALF_LIFE_SECONDS}::float8)))`
  return sql`(${ranked.relevance}::float8 * ${relevance} + ${ranked.recency}::float8 * ${recency})`
}
