import { assert } from "@effect/vitest"
import type { Tenant } from "@timebank/domain"
import { Effect } from "effect"
import { errorsOf } from "../fixtures/bodies.js"
import type { ApiClient } from "../fixtures/client.js"
import { expectError } from "../fixtures/client.js"
import { type Actor, community, makeActor } from "../fixtures/community.js"
import { rawRequest } from "../fixtures/TestApp.js"

/** A community (token sign-in) with a broker and a coordinator besides Ada Admin, Mia Member and Otto Other. */
export const moderationCommunity = (options: { readonly members?: number } = {}) =>
  Effect.gen(function*() {
    const c = yield* community({ signIn: "token", ...options })
    const { broker, coordinator } = yield* staffOf(c.tenant)
    return { ...c, broker, coordinator }
  })

/** A broker and a coordinator of `tenant`, signed in by token. */
export const staffOf = (tenant: Tenant) =>
  Effect.all({
    broker: makeActor(tenant, { role: "broker", firstName: "Bo", lastName: "Broker" }, "token"),
    coordinator: makeActor(tenant, { role: "coordinator", firstName: "Cora", lastName: "Coordinator" }, "token")
  })

/** A route called through a typed client: its answer does not matter, only that it fails as expected. */
export type Route = (client: ApiClient) => Effect.Effect<unknown, unknown>

/** Who calls the admin routes in vain. */
export interface NonAdmins {
  readonly visitor: { readonly client: ApiClient }
  readonly member: Actor
  readonly broker: Actor
  readonly coordinator: Actor
}

/** Each route: 401 without a token, 403 `FORBIDDEN` for a member, a broker and a coordinator. */
export const expectAdminOnly = (c: NonAdmins, routes: ReadonlyArray<Route>) =>
  Effect.gen(function*() {
    for (const route of routes) {
      yield* route(c.visitor.client).pipe(expectError(401, "AUTH_REQUIRED"))
      for (const who of [c.member, c.broker, c.coordinator]) {
        yield* route(who.client).pipe(expectError(403, "FORBIDDEN"))
      }
    }
  })

/**
 * A raw admin call for what the typed client cannot send (odd query strings and bodies); asserts a 422 with the
 * field named.
 */
export const expect422 = (
  who: Actor,
  method: "GET" | "POST",
  path: string,
  field: string,
  body?: unknown
) =>
  Effect.gen(function*() {
    const res = yield* rawRequest(method, path, {
      headers: who.headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    assert.strictEqual(res.status, 422, `${method} ${path}: ${res.text}`)
    assert.include(errorsOf(res.body).map((e) => e.field), field, res.text)
  })
