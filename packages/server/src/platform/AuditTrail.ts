import { HttpApiBuilder, HttpServerRequest, type HttpServerResponse } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { Context, Effect, Option } from "effect"
import { createdIdOf, isAuditedWrite, recordedBody, targetOf } from "./AuditEntry.js"
import { pathOf, type RouteTable } from "./RouteTable.js"

/**
 * Who an admin write is done by and for which tenant: known only inside the HttpApi's middleware, so the audit
 * middleware hands each audited request an empty note that the tenant and authentication middleware fill in.
 */
export interface AuditNote {
  tenantId: number | undefined
  actorId: number | undefined
  impersonatorId: number | null
}

export class AuditScope extends Context.Tag("timebank/platform/AuditScope")<AuditScope, AuditNote>() {}

const withNote = (write: (note: AuditNote) => void) =>
  Effect.flatMap(
    Effect.serviceOption(AuditScope),
    (note) => Option.isSome(note) ? Effect.sync(() => write(note.value)) : Effect.void
  )

/** The tenant middleware tells the audit trail which tenant the request addresses. */
export const noteTenant = (tenantId: number) => withNote((note) => (note.tenantId = tenantId))

/** The authentication middleware tells the audit trail who the caller is (and in which tenant they act). */
export const noteActor = (actor: {
  readonly userId: number
  readonly actingTenantId: number
  readonly impersonatorId: number | null
}) =>
  withNote((note) => {
    note.actorId = actor.userId
    note.tenantId ??= actor.actingTenantId
    note.impersonatorId = actor.impersonatorId
  })

const JSON_TYPE = /^\s*application\/([a-z0-9!#$&^_.-]+\+)?json\s*(;|$)/i

/** The request's JSON body, as the edge guard read and cached it; nothing when it had none. */
const requestJson = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<unknown> => {
  const type = request.headers["content-type"]
  const sent = request.headers["transfer-encoding"] !== undefined ||
    Number(request.headers["content-length"] ?? 0) > 0
  if (!sent || (type !== undefined && !JSON_TYPE.test(type))) return Effect.succeed(undefined)
  return Effect.orElseSucceed(request.json, () => undefined)
}

/** The JSON answer of a write, when it is small enough to be worth reading for the id it created. */
const responseJson = (response: HttpServerResponse.HttpServerResponse): unknown => {
  const body = response.body
  if (body._tag !== "Uint8Array" || body.body.length > 64 * 1024 || !JSON_TYPE.test(body.contentType)) {
    return undefined
  }
  try {
    return JSON.parse(new TextDecoder().decode(body.body))
  } catch {
    return undefined
  }
}

const record = (
  sql: SqlClient.SqlClient,
  routes: RouteTable,
  request: HttpServerRequest.HttpServerRequest,
  response: HttpServerResponse.HttpServerResponse,
  note: AuditNote
) =>
  Effect.gen(function*() {
    const { actorId, tenantId } = note
    if (actorId === undefined || tenantId === undefined) return
    const pathname = pathOf(request.url)
    const route = routes.match(request.method, pathname)
    if (Option.isNone(route)) return
    const target = targetOf(route.value, routes.answersGet(route.value.path))
    const body = recordedBody(yield* requestJson(request))
    const details = {
      method: request.method,
      path: pathname.slice(0, 512),
      status: response.status,
      ...(note.impersonatorId === null ? {} : { impersonator_id: note.impersonatorId }),
      ...(body === undefined ? {} : { request: body })
    }
    const targetId = target.targetId ?? createdIdOf(responseJson(response))
    yield* sql`
      INSERT INTO admin_audit_log (tenant_id, actor_id, action, target_type, target_id, details)
      VALUES (${tenantId}, ${actorId}, ${target.action}, ${target.targetType}, ${targetId},
        ${JSON.stringify(details)}::jsonb)`
  })

/**
 * The audit trail of the administrative catalogue (decisions D15, D17): every POST, PUT, PATCH or DELETE under
 * `/api/v2/admin/` that is answered 2xx leaves one `admin_audit_log` row — tenant, actor, action, target and the
 * request's redacted body — written after the handler answered. Failed writes leave none (their failure is still
 * a typed error here; the HttpApi encodes it further out). Writing the row never changes the answer: a failing
 * insert is logged.
 */
export const auditTrail = (routes: RouteTable) =>
  HttpApiBuilder.middleware(
    Effect.map(SqlClient.SqlClient, (sql) => (app) =>
      Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
        if (!isAuditedWrite(request.method, pathOf(request.url))) return app
        const note: AuditNote = { tenantId: undefined, actorId: undefined, impersonatorId: null }
        return Effect.tap(Effect.provideService(app, AuditScope, note), (response) =>
          response.status >= 200 && response.status < 300
            ? record(sql, routes, request, response, note).pipe(
              Effect.catchAllCause((cause) => Effect.logError("audit entry not written", cause)),
              Effect.uninterruptible
            )
            : Effect.void)
      }))
  )
