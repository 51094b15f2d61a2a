/**
 * Pure checks of what clients send, before anything decodes it: text PostgreSQL cannot store (NUL), control
 * characters no text field should hold, unpaired UTF-16 surrogates (not storable as UTF-8), and JSON nested deeper
 * than any of our contracts. The HTTP edge (`RequestGuard`) runs them on every request in one place.
 */

/** Deeper JSON is refused before decoding: no contract nests this far, and deep values blow decoders' stacks. */
export const MAX_JSON_DEPTH = 64

/** C0 controls but tab, LF and CR, or any surrogate (a pair is checked by {@link firstUnstorable}). */
const SUSPICIOUS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uD800-\uDFFF]/

/**
 * The index of the first character that a text field must not hold — NUL or another C0 control other than tab, LF
 * and CR, or a lone surrogate — or -1 when the string is clean. Valid surrogate pairs (emoji) are fine.
 */
export const firstUnstorable = (s: string): number => {
  if (!SUSPICIOUS.test(s)) return -1
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c < 0x20) {
      if (c !== 0x09 && c !== 0x0a && c !== 0x0d) return i
    } else if (c >= 0xd800 && c <= 0xdfff) {
      const next = s.charCodeAt(i + 1)
      if (c > 0xdbff || !(next >= 0xdc00 && next <= 0xdfff)) return i
      i++
    }
  }
  return -1
}

export const isStorable = (s: string): boolean => firstUnstorable(s) === -1

/** Names a refused character for a message: `U+0000`. */
export const describeAt = (s: string, index: number): string =>
  `U+${s.charCodeAt(index).toString(16).toUpperCase().padStart(4, "0")}`

/** A field name fit for an error body and a log line: refused characters become `\uXXXX`, long names are cut. */
export const printableName = (name: string): string => {
  let out = ""
  for (let i = 0; i < name.length && out.length < 100; i++) {
    const bad = firstUnstorable(name.slice(i, i + 2)) === 0
    out += bad ? `\\u${name.charCodeAt(i).toString(16).padStart(4, "0")}` : name[i]
    if (!bad && name.charCodeAt(i) >= 0xd800 && name.charCodeAt(i) <= 0xdbff) out += name[++i] ?? ""
  }
  return out
}

/** A string that a text field must not hold, at a dotted path ("" is the value itself). */
export interface RefusedString {
  readonly field: string
  readonly message: string
}

const refusal = (field: string, value: string, index: number, what: "value" | "key"): RefusedString => ({
  field,
  message: `${what === "key" ? "a property name" : "text"} must not contain the control character or unpaired ` +
    `surrogate ${describeAt(value, index)}`
})

export type JsonVerdict =
  | { readonly _tag: "Clean" }
  | { readonly _tag: "TooDeep" }
  | { readonly _tag: "Refused"; readonly strings: ReadonlyArray<RefusedString> }

const joinPath = (parent: string, key: string) => (parent === "" ? key : `${parent}.${key}`)

/**
 * Walks a parsed JSON value without recursion (so depth can never overflow the stack): refuses nesting deeper than
 * {@link MAX_JSON_DEPTH} and reports every string — value or property name — that a text field must not hold, with
 * its dotted path (`tags.0`), one entry per field.
 */
export const scanJson = (root: unknown): JsonVerdict => {
  const refused: Array<RefusedString> = []
  const stack: Array<{ readonly value: unknown; readonly path: string; readonly depth: number }> = [
    { value: root, path: "", depth: 0 }
  ]
  while (stack.length > 0) {
    const { depth, path, value } = stack.pop()!
    if (typeof value === "string") {
      const at = firstUnstorable(value)
      if (at !== -1) refused.push(refusal(path, value, at, "value"))
      continue
    }
    if (typeof value !== "object" || value === null) continue
    if (depth >= MAX_JSON_DEPTH) return { _tag: "TooDeep" }
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) {
        stack.push({ value: value[i], path: joinPath(path, String(i)), depth: depth + 1 })
      }
      continue
    }
    const keys = Object.keys(value)
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i]!
      const at = firstUnstorable(key)
      const childPath = joinPath(path, at === -1 ? key : printableName(key))
      if (at !== -1) refused.push(refusal(childPath, key, at, "key"))
      stack.push({ value: (value as Record<string, unknown>)[key], path: childPath, depth: depth + 1 })
    }
  }
  return refused.length === 0 ? { _tag: "Clean" } : { _tag: "Refused", strings: refused }
}

/** Decodes bytes as UTF-8, refusing what is not (instead of replacing it with U+FFFD). */
export const decodeUtf8 = (bytes: ArrayBuffer | Uint8Array): string | undefined => {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes)
  } catch {
    return undefined
  }
}

/** One refused part of a URL: where (`path`, or a query parameter's name) and why. */
export interface UrlRefusal {
  readonly field: string
  readonly message: string
}

const decodeComponent = (raw: string, plusIsSpace: boolean): string | undefined => {
  try {
    return decodeURIComponent(plusIsSpace ? raw.replace(/\+/g, " ") : raw)
  } catch {
    return undefined
  }
}

/** Printable ASCII without `%`: nothing to decode and nothing to refuse (most requests). */
const PLAIN_URL = /^[!-$&-~]*$/

/**
 * Checks a request target (`/path?query`): every path segment and query name and value must be valid
 * percent-encoded UTF-8 and hold no character a text field must not hold. Returns the refusals (empty when clean).
 */
export const checkUrl = (url: string): ReadonlyArray<UrlRefusal> => {
  if (PLAIN_URL.test(url)) return []
  const queryAt = url.indexOf("?")
  const path = queryAt === -1 ? url : url.slice(0, queryAt)
  const refusals: Array<UrlRefusal> = []
  for (const segment of path.split("/")) {
    const decoded = decodeComponent(segment, false)
    if (decoded === undefined) {
      refusals.push({ field: "path", message: "the path is not valid percent-encoded UTF-8" })
      break
    }
    const at = firstUnstorable(decoded)
    if (at !== -1) {
      refusals.push({ field: "path", message: `the path must not contain ${describeAt(decoded, at)}` })
      break
    }
  }
  if (queryAt === -1) return refusals
  for (const pair of url.slice(queryAt + 1).split("&")) {
    if (pair === "") continue
    const eq = pair.indexOf("=")
    const name = decodeComponent(eq === -1 ? pair : pair.slice(0, eq), true)
    const value = eq === -1 ? "" : decodeComponent(pair.slice(eq + 1), true)
    if (name === undefined || firstUnstorable(name) !== -1) {
      refusals.push({ field: "query", message: "a query parameter name is not valid text" })
      continue
    }
    if (value === undefined) {
      refusals.push({ field: name, message: "is not valid percent-encoded UTF-8" })
      continue
    }
    const at = firstUnstorable(value)
    if (at !== -1) refusals.push({ field: name, message: `must not contain ${describeAt(value, at)}` })
  }
  return refusals
}
