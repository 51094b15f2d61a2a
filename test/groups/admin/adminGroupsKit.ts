import { assert } from "@effect/vitest"
import type { Notification } from "@timebank/domain"
import { GroupId } from "@timebank/domain"
import { Effect } from "effect"
import { type ApiClient, expectError, expectOk } from "../../fixtures/client.js"
import { type Actor, type Community, makeActor } from "../../fixtures/community.js"
import { dispatchSettled } from "../../fixtures/notifications.js"

/** Helpers shared by the groups admin tests (decisions D17 "Groups admin"). */

export const gid = (id: number) => GroupId.make(id)

/**
 * The route refuses everyone but admins: no token → 401 `AUTH_REQUIRED`; a member, a broker and a coordinator → 403
 * `FORBIDDEN`. `call` sends a request that an admin would see succeed (or fail on the record, never on its body).
 */
export const expectAdminOnly = <A, E>(c: Community, call: (client: ApiClient) => Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    yield* call(c.visitor.client).pipe(expectError(401, "AUTH_REQUIRED"))
    const broker = yield* makeActor(c.tenant, { role: "broker" }, "token")
    const coordinator = yield* makeActor(c.tenant, { role: "coordinator" }, "token")
    for (const who of [c.member, broker, coordinator]) {
      yield* call(who.client).pipe(expectError(403, "FORBIDDEN"))
    }
  })

/** The admin's view of a group. */
export const adminGroup = (admin: Actor, id: number) =>
  Effect.map(admin.client.adminGroups.get({ path: { id: gid(id) } }).pipe(expectOk), (res) => res.data)

/** `who`'s bells of `type` about the group, once the dispatch handled every outbox event written so far. */
export const bellsAbout = (who: Actor, type: string, group: { readonly id: number }) =>
  Effect.zipRight(
    dispatchSettled,
    Effect.map(
      Effect.orDie(who.client.notifications.list({ urlParams: { per_page: 100 } })),
      (page): ReadonlyArray<Notification> =>
        page.data.filter((b) => b.type === type && b.link === `/groups/${group.id}`)
    )
  )

/** Ids of the member list (`GET /api/v2/groups`) as `who` sees it. */
export const memberListIds = (who: Actor) =>
  Effect.map(
    who.client.groups.list({ urlParams: { per_page: 50 } }).pipe(expectOk),
    (page) => page.data.map((g) => g.id as number)
  )

/** Asserts the ids of an admin page. */
export const idsOf = (page: { readonly data: ReadonlyArray<{ readonly id: number }> }) => page.data.map((g) => g.id)

export const assertIds = (
  page: { readonly data: ReadonlyArray<{ readonly id: number }> },
  expected: ReadonlyArray<{ readonly id: number }>
) => assert.deepStrictEqual(idsOf(page), expected.map((g) => g.id))
