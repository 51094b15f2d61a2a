import { SqlClient } from "@effect/sql"
import { assert } from "@effect/vitest"
import type { FederationScope, FederationToggle } from "@timebank/domain"
import { Effect } from "effect"
import { expectStatus } from "../fixtures/client.js"
import { type Actor, community } from "../fixtures/community.js"
import { federationCall, federationOn, makeApiKey, type TestApiKey } from "../fixtures/federation.js"
import { fromIp, randomIp } from "../fixtures/servers.js"

/** Helpers of the inbound read tests (test/federation/inboundReads*.test.ts). */

export const READ_SCOPES: ReadonlyArray<FederationScope> = [
  "members:read",
  "listings:read",
  "events:read",
  "groups:read",
  "reviews:read"
]

/** The fields D13a lets cross for a member, in the view's order. */
export const MEMBER_FIELDS = ["id", "first_name", "last_name", "avatar_url", "bio", "skills", "location"]

/** `who` opts in to federation through `PUT /users/me`, with a public profile. */
export const optIn = (who: Actor, profile: { readonly bio?: string; readonly location?: string } = {}) =>
  who.client.users.updateMe({
    payload: {
      federation_opt_in: true,
      bio: profile.bio ?? "I fix bikes",
      location: profile.location ?? "Ghent",
      avatar_url: "https://img.example.org/a.png"
    },
    withResponse: true
  }).pipe(expectStatus(200))

/**
 * A community with federation on (every toggle unless given) and a key with every read scope: Mia Member opted
 * in, Otto Other did not.
 */
export const federatedCommunity = (
  options: { readonly toggles?: ReadonlyArray<FederationToggle>; readonly members?: number } = {}
) =>
  Effect.gen(function*() {
    const c = yield* community({ signIn: "token", members: options.members ?? 0 })
    yield* federationOn(c.tenant, options.toggles)
    yield* optIn(c.member)
    const key = yield* makeApiKey(c.tenant, { scopes: READ_SCOPES })
    return { ...c, key }
  })

/**
 * The community's admin changes toggles through `PUT /admin/federation/settings`: the server's own switches cache
 * forgets them at once (the kit's `setToggles` writes through another instance, which the server sees only after
 * `SWITCHES_TTL`).
 */
export const changeToggles = (admin: Actor, changes: Partial<Record<FederationToggle, boolean>>) =>
  admin.client.adminFederationSettings.update({ payload: changes, withResponse: true }).pipe(expectStatus(200))

/** A partner's GET from an address of this call's own (the per-IP read limit is 60 a minute). */
export const partnerGet = (path: string, key: TestApiKey) =>
  federationCall("GET", path, { key, headers: fromIp(randomIp()) })

interface Page {
  readonly data: ReadonlyArray<Record<string, unknown>>
  readonly meta: { readonly per_page: number; readonly has_more: boolean; readonly cursor?: string }
}

/** No member's private field anywhere in an answer (D13a: never e-mail, phone or balance). */
export const assertNothingPrivate = (body: unknown) => {
  const text = JSON.stringify(body)
  for (const key of ["email", "phone", "balance", "password_hash", "role", "notification_preferences"]) {
    assert.notInclude(text, `"${key}":`)
  }
}

/** A 200 list answer. */
export const listOf = (path: string, key: TestApiKey) =>
  Effect.map(partnerGet(path, key), (res) => {
    assert.strictEqual(res.status, 200, JSON.stringify(res.body))
    assertNothingPrivate(res.body)
    return res.body as Page
  })

/** A 200 detail answer's `data`. */
export const itemOf = (path: string, key: TestApiKey) =>
  Effect.map(partnerGet(path, key), (res) => {
    assert.strictEqual(res.status, 200, JSON.stringify(res.body))
    assert.deepStrictEqual((res.body as { meta: unknown }).meta, {})
    assertNothingPrivate(res.body)
    return (res.body as { data: Record<string, unknown> }).data
  })

/** The error answer `status` / `code` (and `field`, when given). */
export const expectRefused = (
  path: string,
  key: TestApiKey,
  status: number,
  code: string,
  field?: string
) =>
  Effect.map(partnerGet(path, key), (res) => {
    assert.strictEqual(res.status, status, JSON.stringify(res.body))
    const [error] = (res.body as { errors: ReadonlyArray<{ code: string; field?: string }> }).errors
    assert.strictEqual(error?.code, code)
    if (field !== undefined) assert.strictEqual(error?.field, field)
    return res
  })

/** Every page of a list, following `meta.cursor`. */
export const allPages = (path: string, key: TestApiKey, perPage: number) =>
  Effect.gen(function*() {
    const pages: Array<Page> = []
    let cursor: string | undefined
    do {
      const sep = path.includes("?") ? "&" : "?"
      const page = yield* listOf(
        `${path}${sep}per_page=${perPage}${cursor === undefined ? "" : `&cursor=${cursor}`}`,
        key
      )
      pages.push(page)
      cursor = page.meta.cursor
      assert.strictEqual(page.meta.has_more, cursor !== undefined)
    } while (cursor !== undefined && pages.length < 50)
    return pages
  })

export const idsOf = (page: Page) => page.data.map((item) => item["id"])

/** Sets columns of a row straight in the database (states the API reaches in ways not under test here). */
export const setRow = (table: "users" | "events" | "listings", id: number, values: Record<string, unknown>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql`UPDATE ${sql(table)} SET ${sql.update(values)} WHERE id = ${id}`)
    .pipe(Effect.orDie, Effect.asVoid)
