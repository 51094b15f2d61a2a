import { AuditAction } from "@timebank/domain"
import { Context, Option } from "effect"
import type { MatchedRoute } from "./RouteTable.js"

/** The prefix of the administrative catalogue: its writes are audited (decisions D15, D17). */
export const ADMIN_PREFIX = "/api/v2/admin/"

const WRITES = new Set(["POST", "PUT", "PATCH", "DELETE"])

/** A write to an admin route: what the audit trail records once it answered 2xx. */
export const isAuditedWrite = (method: string, pathname: string) =>
  WRITES.has(method) && pathname.startsWith(ADMIN_PREFIX)

/** What an audit row says besides who and where: derived from the route the request matched. */
export interface AuditTarget {
  readonly action: string
  readonly targetType: string
  /** The first path parameter (the record acted on), when the route has one. */
  readonly targetId: string | null
}

const segmentsOf = (template: string) => template.slice(ADMIN_PREFIX.length).split("/").filter((seg) => seg !== "")

const isParam = (seg: string) => seg.startsWith(":")

/**
 * `PUT /api/v2/admin/config/features` → `config.features.updated`, `DELETE .../categories/:id` →
 * `categories.deleted`; a POST to a path that also answers GET (a collection) → `categories.created`; any other
 * POST names its last segment as the verb: `.../users/:id/approve` → `users.approve`, `.../cache/clear` →
 * `cache.clear`. `AuditAction` on the endpoint overrides the derived name.
 */
export const actionOf = (route: MatchedRoute, answersGet: boolean): string =>
  Option.getOrElse(Context.getOption(route.annotations, AuditAction), () => {
    const name = segmentsOf(route.path).filter((seg) => !isParam(seg)).join(".")
    switch (route.method) {
      case "PUT":
      case "PATCH":
        return `${name}.updated`
      case "DELETE":
        return `${name}.deleted`
      default:
        return answersGet ? `${name}.created` : name
    }
  })

const decodeParam = (value: string) => {
  try {
    return decodeURIComponent(value)
  } catch {
    return value
  }
}

export const targetOf = (route: MatchedRoute, answersGet: boolean): AuditTarget => ({
  action: actionOf(route, answersGet),
  targetType: segmentsOf(route.path).find((seg) => !isParam(seg)) ?? "admin",
  targetId: route.params[0] === undefined ? null : decodeParam(route.params[0]).slice(0, 200)
})

/** Request bodies larger than this (as JSON, after redaction) are not kept in the entry's details. */
export const MAX_RECORDED_BODY = 4 * 1024

const SECRET_KEY = /password|secret|token|key|credential/i
const REDACTED = "[redacted]"

/** The body with the value of every key that may hold a secret replaced, at any depth. */
export const redact = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(redact)
  if (typeof value !== "object" || value === null) return value
  return Object.fromEntries(
    Object.entries(value).map(([key, v]) => [key, SECRET_KEY.test(key) ? REDACTED : redact(v)])
  )
}

/** The redacted body to keep in the entry, or undefined when there is none or it is too large to keep. */
export const recordedBody = (body: unknown): unknown => {
  if (body === undefined || body === null) return undefined
  const redacted = redact(body)
  const text = JSON.stringify(redacted)
  return text === undefined || text.length > MAX_RECORDED_BODY ? undefined : redacted
}

/** `data.id` of a JSON answer (the id of what a POST created), if it has one. */
export const createdIdOf = (json: unknown): string | null => {
  if (typeof json !== "object" || json === null || !("data" in json)) return null
  const data = json.data
  if (typeof data !== "object" || data === null || !("id" in data)) return null
  const id = data.id
  return typeof id === "number" || (typeof id === "string" && id.length <= 200) ? String(id) : null
}
