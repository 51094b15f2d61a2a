import type { OpenApiModel, Operation } from "./OpenApiModel.js"
import { encode, paramsOf, type Plan } from "./Requests.js"
import { baselineValue, type IdSource, isIdName, kindOf, type ValueContext } from "./Values.js"

/** How the sweep fills paths and queries with the ids of the world, and which routes it treats specially. */

/** Routes that authenticate by what their body carries and ignore a token sent along (sign-in, password reset). */
export const isSignInRoute = (op: Operation) =>
  /\/auth\/(register|login|refresh|password-reset)|\/api\/auth\/login$|\/csrf-token$/.test(op.path)

/** GETs first, then writes, deletes after, ending sessions last: the fuzz destroys the world as late as it can. */
const rank = (op: Operation) => /\/logout$/.test(op.path) ? 3 : op.method === "GET" ? 0 : op.method === "DELETE" ? 2 : 1

export const ordered = (ops: ReadonlyArray<Operation>) =>
  ops.map((op, i) => ({ op, i })).sort((x, y) => rank(x.op) - rank(y.op) || x.i - y.i).map((x) => x.op)

/** Runs `run` over the items, at most `size` at a time. */
export const pool = async <A>(items: ReadonlyArray<A>, size: number, run: (item: A) => Promise<void>) => {
  let next = 0
  const worker = async () => {
    while (next < items.length) await run(items[next++]!)
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(size, items.length)) }, worker))
}

const FEDERATED_KINDS = ["transaction", "message"]

/**
 * The record kind a path parameter names: the segment before it (`/listings/{id}`; `/reviews/{type}/{id}` reads the
 * value given to `type`), else its own name (`attendeeId`).
 */
export const kindOfParam = (op: Operation, name: string, values: Readonly<Record<string, string>> = {}) => {
  const segments = op.path.split("/")
  const at = segments.findIndex((s) => s.includes(`{${name}}`))
  const before = at > 0 ? segments[at - 1]! : ""
  const param = /^\{([^}]+)\}$/.exec(before)?.[1]
  const word = param === undefined ? before : decodeURIComponent(values[param] ?? "")
  // Two segments first (`matching/approvals` names a match, where `groups/approvals` names a group).
  const kind = kindOf(`${segments[at - 2] ?? ""}/${word}`) ?? kindOf(word) ?? (name === "id" ? undefined : kindOf(name))
  // Under the federation routes, transactions and messages are the partners' own records, not the ledger's or
  // members' (a federated transaction, a message from a partner's member).
  return kind !== undefined && FEDERATED_KINDS.includes(kind) && /\/federation\//.test(op.path)
    ? `federated ${kind}`
    : kind
}

const enumOf = (model: OpenApiModel, schema: unknown): ReadonlyArray<unknown> | undefined =>
  model.members(schema).find((m) => Array.isArray(m["enum"]))?.["enum"] as ReadonlyArray<unknown> | undefined

/** The path values of a phase's records: enum parameters their first value, ids by the kind they name. */
export const pathValuesFor = (model: OpenApiModel, op: Operation, ids: IdSource, ctx: ValueContext) => {
  const values: Record<string, string> = {}
  for (const p of paramsOf(op, "path")) {
    const choices = enumOf(model, p.schema)
    const kind = choices === undefined ? kindOfParam(op, p.name, values) : undefined
    const id = kind === undefined ? undefined : ids.ids(kind)[0]
    values[p.name] = choices !== undefined && choices.length > 0
      ? encode(String(choices[0]))
      : id === undefined
      ? encode(String(baselineValue(ctx, p.schema, p.name)))
      : String(id)
  }
  return values
}

export interface PathVariant {
  readonly values: Record<string, string>
  /** Some parameter named a record of a known kind of the other tenant. */
  readonly known: boolean
  readonly label: string
}

/**
 * Every way to fill an operation's path with the other tenant's ids: each value of an enum parameter, up to three
 * ids of a known kind, and for a parameter of unknown kind the first id of every kind.
 */
export const foreignPathVariants = (
  model: OpenApiModel,
  op: Operation,
  ids: IdSource,
  kinds: ReadonlyArray<string>
): ReadonlyArray<PathVariant> => {
  let variants: Array<PathVariant> = [{ values: {}, known: false, label: "" }]
  for (const p of paramsOf(op, "path")) {
    const next: Array<PathVariant> = []
    for (const v of variants) {
      const choices = enumOf(model, p.schema)
      if (choices !== undefined) {
        for (const c of choices) {
          next.push({
            ...v,
            values: { ...v.values, [p.name]: encode(String(c)) },
            label: `${v.label}${p.name}=${String(c)} `
          })
        }
        continue
      }
      const kind = kindOfParam(op, p.name, v.values)
      const candidates = kind === undefined
        ? kinds.flatMap((k) => ids.ids(k).slice(0, 1).map((id) => [k, id] as const))
        : ids.ids(kind).slice(0, 3).map((id) => [kind, id] as const)
      for (const [k, id] of candidates) {
        next.push({
          values: { ...v.values, [p.name]: String(id) },
          known: v.known || kind !== undefined,
          label: `${v.label}${p.name}=A's ${k} ${id} `
        })
      }
      if (candidates.length === 0) {
        next.push({ ...v, values: { ...v.values, [p.name]: "1" }, label: `${v.label}${p.name}=1 ` })
      }
    }
    variants = next.slice(0, 40)
  }
  return variants
}

/** The plan's query with every optional id parameter set to the other tenant's record of its kind. */
export const foreignQuery = (op: Operation, plan: Plan, ids: IdSource): ReadonlyArray<readonly [string, string]> => {
  const extra = paramsOf(op, "query")
    .filter((p) => !p.required && isIdName(p.name))
    .flatMap((p) => {
      const id = ids.ids(kindOf(p.name) ?? "")[0]
      return id === undefined ? [] : [[p.name, String(id)] as const]
    })
  return [...plan.query, ...extra]
}

/** Does the plan's JSON body hold an id property? */
export const bodyHasIds = (plan: Plan) =>
  plan.body?.kind === "json" && /"[a-z_]*_ids?":/.test(JSON.stringify(plan.body.value))
