import type { ListMatchesParams, UpdateMatchingConfig, UpdateMatchProfile } from "@timebank/domain"
import { Effect } from "effect"
import { expectOk } from "../fixtures/client.js"
import type { Actor } from "../fixtures/community.js"

/** Sets the member's profile location (what matching geocodes) through PUT /users/me. */
export const setLocation = (who: Actor, location: string | null) =>
  expectOk(who.client.users.updateMe({ payload: { location } }))

export const setProfile = (who: Actor, payload: UpdateMatchProfile) =>
  Effect.map(expectOk(who.client.matching.updateProfile({ payload })), (r) => r.data)

export const matchesOf = (who: Actor, urlParams: ListMatchesParams = {}) =>
  expectOk(who.client.matching.list({ urlParams }))

export const configure = (admin: Actor, payload: UpdateMatchingConfig) =>
  Effect.map(expectOk(admin.client.adminMatching.updateConfig({ payload })), (r) => r.data)

export const pendingOf = (admin: Actor, userId: number) =>
  Effect.map(
    expectOk(admin.client.adminMatching.approvals({ urlParams: { status: "pending", user_id: userId } })),
    (page) => page.data
  )
