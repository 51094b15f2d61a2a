import { HttpClient, HttpClientRequest } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { assert, describe, it, layer } from "@effect/vitest"
import { type Tenant, UserId } from "@timebank/domain"
import { hashToken, IMPORT_MAX_ROWS, IMPORT_TEMPLATE, parseCsv, planImport } from "@timebank/server"
import { Effect, Either } from "effect"
import { codeOf, dataOf, errorsOf } from "./fixtures/bodies.js"
import { answerOf, type ApiClient, apiClient, asJson, expectError, expectStatus, failureOf } from "./fixtures/client.js"
import { community } from "./fixtures/community.js"
import { fromIp, randomIp } from "./fixtures/servers.js"
import { tenantHeaders } from "./fixtures/tenants.js"
import { rawRequest, TestApp } from "./fixtures/TestApp.js"
import { makeAdmin, makeSuperAdmin, makeUser, TEST_PASSWORD, type TestUser } from "./fixtures/users.js"

const USERS = "/api/v2/admin/users"
type Method = "GET" | "POST" | "PUT" | "DELETE"
type Headers = Record<string, string>

/** A raw request, for bodies and queries the contract refuses to send and for wire-level checks. */
const call = (method: Method, path: string, headers: Headers, body?: unknown) =>
  rawRequest(method, path, { headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })

/**
 * Logs in over HTTP from an address of its own (the server trusts X-Forwarded-For here), so that the many
 * sign-ins of this file never meet the per-IP login rate limit or failure throttle. The answer: status, and the
 * tokens or the refusal.
 */
const signIn = (user: Pick<TestUser, "email" | "password" | "tenant">, password = user.password) =>
  Effect.flatMap(
    apiClient({ ...tenantHeaders(user.tenant), ...fromIp(randomIp()) }),
    (client) => answerOf(client.auth.login({ payload: { email: user.email, password } }))
  )

/** `user` signed in over HTTP, addressed to its own tenant or to `tenant`: bearer headers and typed client. */
const signedIn = (user: TestUser, tenant: { readonly id: number } = user.tenant) =>
  Effect.gen(function*() {
    const res = yield* signIn(user)
    if (res.value === undefined) return yield* Effect.die(new Error(`login failed: ${res.status}`))
    const headers = { ...tenantHeaders(tenant), authorization: `Bearer ${res.value.access_token}` }
    return { headers, client: yield* apiClient(headers) }
  })

/**
 * The kit's community (admin Ada, members Mia and Otto), signed in without HTTP logins; the admin signs in over
 * HTTP here (`headers`, `client`), so that it has a last login and Mia has none.
 */
const adminCommunity = () =>
  Effect.gen(function*() {
    const c = yield* community({ signIn: "token" })
    return { ...c, ...(yield* signedIn(c.admin)) }
  })

/** A typed call of an admin users route, for loops over routes. */
type Route = readonly [name: string, call: (client: ApiClient) => Effect.Effect<unknown, unknown>]

/** Sends a multipart/form-data upload of `csv` as the field `field` (no file at all when `csv` is undefined). */
const uploadCsv = (headers: Headers, csv: string | undefined, field = "file") =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const form = new FormData()
    form.append("note", "users of the spring fair")
    if (csv !== undefined) form.append(field, new Blob([csv], { type: "text/csv" }), "users.csv")
    const response = yield* client.execute(
      HttpClientRequest.post(`${USERS}/import`).pipe(
        HttpClientRequest.setHeaders(headers),
        HttpClientRequest.bodyFormData(form)
      )
    )
    const text = yield* response.text
    return { status: response.status, text, body: text === "" ? undefined : (JSON.parse(text) as unknown) }
  }).pipe(Effect.scoped, Effect.orDie)

const userRow = (id: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<Record<string, unknown>>`SELECT * FROM users WHERE id = ${id}`.pipe(Effect.map((rows) => rows[0]!))
  )

const eventsOf = (tenant: Tenant, type: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ payload: Record<string, unknown> }>`
      SELECT payload FROM outbox_events WHERE tenant_id = ${tenant.id} AND event_type = ${type} ORDER BY id`.pipe(
      Effect.map((rows) => rows.map((r) => r.payload))
    ))

const mailsOf = (userId: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ to_email: string; template: string; status: string; data: Record<string, unknown> }>`
      SELECT to_email, template, status, data FROM mail_outbox WHERE user_id = ${userId} ORDER BY id`
  )

const liveResetTokens = (userId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ token_hash: string; seconds_left: number }>`
      SELECT token_hash, extract(epoch FROM expires_at - now())::float8 AS seconds_left
      FROM password_reset_tokens WHERE user_id = ${userId} AND used_at IS NULL`)

/** Every admin users route, with a valid body, aimed at user `id`. */
const routesOn = (userId: number): Array<Route> => {
  const path = { id: UserId.make(userId) }
  return [
    ["get", (c) => c.adminUsers.get({ path })],
    ["update", (c) => c.adminUsers.update({ path, payload: { first_name: "Renamed" } })],
    ["delete", (c) => c.adminUsers.delete({ path })],
    ["approve", (c) => c.adminUsers.approve({ path })],
    ["suspend", (c) => c.adminUsers.suspend({ path })],
    ["ban", (c) => c.adminUsers.ban({ path })],
    ["reactivate", (c) => c.adminUsers.reactivate({ path })],
    ["password", (c) => c.adminUsers.setPassword({ path, payload: { password: "a new password" } })],
    ["send-password-reset", (c) => c.adminUsers.sendPasswordReset({ path })],
    ["send-welcome-email", (c) => c.adminUsers.sendWelcomeEmail({ path })],
    ["super-admin", (c) => c.adminUsers.setSuperAdmin({ path, payload: { is_super_admin: true } })],
    ["impersonate", (c) => c.adminUsers.impersonate({ path })],
    ["consents", (c) => c.adminUsers.consents({ path })],
    ["reset-2fa", (c) => c.adminUsers.resetTwoFactor({ path })]
  ]
}

const collectionRoutes: Array<Route> = [
  ["list", (c) => c.adminUsers.list({ urlParams: {} })],
  [
    "create",
    (c) => c.adminUsers.create({ payload: { email: "someone@example.org", first_name: "Some", last_name: "One" } })
  ],
  ["template", (c) => c.adminUsers.importTemplate()]
]

layer(TestApp({ TRUST_PROXY: "true" }), { excludeTestServices: true, timeout: "180 seconds" })("admin users", (it) => {
  describe("access", () => {
    it.effect("without a token every route is 401 AUTH_REQUIRED", () =>
      Effect.gen(function*() {
        const { member, tenant, visitor } = yield* adminCommunity()
        for (const [, route] of [...collectionRoutes, ...routesOn(member.id)]) {
          yield* route(visitor.client).pipe(expectError(401, "AUTH_REQUIRED"))
        }
        // Multipart: raw.
        const upload = yield* uploadCsv(tenantHeaders(tenant), "email,first_name,last_name\n")
        assert.strictEqual(upload.status, 401)
      }))

    it.effect("members, brokers and coordinators get 403 FORBIDDEN on every route, and nothing changes", () =>
      Effect.gen(function*() {
        const { member, tenant } = yield* adminCommunity()
        const target = yield* makeUser(tenant)
        for (const role of ["member", "broker", "coordinator"] as const) {
          const { client, headers } = yield* signedIn(role === "member" ? member : yield* makeUser(tenant, { role }))
          for (const [, route] of [...collectionRoutes, ...routesOn(target.id)]) {
            yield* route(client).pipe(expectError(403, "FORBIDDEN"))
          }
          const upload = yield* uploadCsv(headers, "email,first_name,last_name\nx@example.org,X,Y\n")
          assert.strictEqual(upload.status, 403)
        }
        const row = yield* userRow(target.id)
        assert.include(row, { status: "active", first_name: "Test", deleted_at: null, is_super_admin: false })
        assert.strictEqual((yield* signIn(target)).status, 200)
      }))

    it.effect("an admin of another community gets 404 on every {id} route; a token of tenant A on B is 401", () =>
      Effect.gen(function*() {
        const a = yield* adminCommunity()
        const b = yield* adminCommunity()
        for (const [name, route] of routesOn(b.member.id)) {
          if (name === "super-admin") continue // platform super-admins only: 403 before any lookup
          yield* route(a.client).pipe(expectError(404, "NOT_FOUND"))
        }
        // A platform super-admin addressing tenant A does not reach B's users either.
        const superAdmin = yield* signedIn(yield* makeSuperAdmin(), a.tenant)
        for (const [, route] of routesOn(b.member.id)) {
          assert.strictEqual((yield* failureOf(route(superAdmin.client))).status, 404)
        }
        const listed = yield* a.client.adminUsers.list({ urlParams: { per_page: 100 } })
        assert.notInclude(listed.data.map((u) => u.id), b.member.id)
        const foreign = yield* apiClient({ ...a.headers, ...tenantHeaders(b.tenant) })
        assert.strictEqual((yield* failureOf(foreign.adminUsers.list({ urlParams: {} }))).status, 401)
        const row = yield* userRow(b.member.id)
        assert.include(row, { status: "active", first_name: "Mia", deleted_at: null })
        // Ids that are not positive integers name nothing: raw.
        for (const id of ["abc", "0", "-1", "1.5"]) {
          assert.strictEqual((yield* call("GET", `${USERS}/${id}`, a.headers)).status, 404, id)
        }
      }))

    it.effect("acting on one's own account is 403 for status, delete, password, 2FA, impersonation and super-admin", () =>
      Effect.gen(function*() {
        const { admin, client } = yield* adminCommunity()
        const forbidden = routesOn(admin.id).filter(([name]) =>
          ["delete", "approve", "suspend", "ban", "reactivate", "password", "impersonate", "reset-2fa"].includes(name)
        )
        assert.strictEqual(forbidden.length, 8)
        for (const [, route] of forbidden) yield* route(client).pipe(expectError(403, "FORBIDDEN"))
        const self = { id: UserId.make(admin.id) }
        const demote = yield* failureOf(client.adminUsers.update({ path: self, payload: { role: "member" } }))
        assert.strictEqual(demote.status, 403)
        const superAdmin = yield* makeSuperAdmin()
        const platform = yield* signedIn(superAdmin)
        const selfFlag = yield* failureOf(
          platform.client.adminUsers.setSuperAdmin({
            path: { id: UserId.make(superAdmin.id) },
            payload: { is_super_admin: false }
          })
        )
        assert.strictEqual(selfFlag.status, 403)
        // Still an admin who can sign in and edit their own names.
        yield* client.adminUsers.update({ path: self, payload: { first_name: "Ada" }, withResponse: true }).pipe(
          expectStatus(200)
        )
        assert.include(yield* userRow(admin.id), { role: "admin", status: "active", first_name: "Ada" })
      }))

    it.effect("a platform super-admin manages users of any community it addresses", () =>
      Effect.gen(function*() {
        const { member, tenant } = yield* adminCommunity()
        const { client } = yield* signedIn(yield* makeSuperAdmin(), tenant)
        const path = { id: UserId.make(member.id) }
        yield* client.adminUsers.get({ path, withResponse: true }).pipe(expectStatus(200))
        const suspended = yield* client.adminUsers.suspend({ path })
        assert.deepStrictEqual(suspended.data, { id: member.id, status: "suspended", is_approved: true })
      }))
  })

  describe("list", () => {
    it.effect("pages newest first with D1 offset meta, filters by status, role and search (ILIKE)", () =>
      Effect.gen(function*() {
        const { admin, client, member, other } = yield* adminCommunity()
        const pending = yield* makeUser(admin.tenant, { status: "pending", isApproved: false, firstName: "Penny" })
        const broker = yield* makeUser(admin.tenant, { role: "broker", lastName: "O'Brokerly" })
        const odd = yield* makeUser(admin.tenant, { email: `x_100%-${member.id}@Example.org`, firstName: "Zed" })
        const everyone = [odd.id, broker.id, pending.id, other.id, member.id, admin.id]

        const all = yield* client.adminUsers.list({ urlParams: {} })
        assert.deepStrictEqual(all.meta, { current_page: 1, per_page: 20, total: 6, total_pages: 1, has_more: false })
        assert.deepStrictEqual(all.data.map((u) => u.id), everyone)
        const first = all.data.find((u) => u.id === member.id)!
        assert.include(first, { email: member.email, role: "member", status: "active", has_password: true })
        assert.strictEqual(first.last_login_at, null)
        assert.notStrictEqual(all.data.find((u) => u.id === admin.id)!.last_login_at, null)

        const page2 = yield* client.adminUsers.list({ urlParams: { page: 2, per_page: 2 } })
        assert.deepStrictEqual(page2.meta, { current_page: 2, per_page: 2, total: 6, total_pages: 3, has_more: true })
        assert.deepStrictEqual(page2.data.map((u) => u.id), [pending.id, other.id])
        const beyond = yield* client.adminUsers.list({ urlParams: { page: 9, per_page: 2 } })
        assert.deepStrictEqual(beyond.data, [])
        assert.strictEqual(beyond.meta.has_more, false)

        const ids = (urlParams: Parameters<typeof client.adminUsers.list>[0]["urlParams"]) =>
          Effect.map(
            client.adminUsers.list({ urlParams, withResponse: true }).pipe(expectStatus(200)),
            (res) => res.data.map((u) => u.id)
          )
        assert.deepStrictEqual(yield* ids({ status: "pending" }), [pending.id])
        assert.deepStrictEqual(yield* ids({ role: "broker" }), [broker.id])
        assert.deepStrictEqual(yield* ids({ role: "admin", status: "active" }), [admin.id])
        assert.deepStrictEqual(yield* ids({ search: "penny" }), [pending.id])
        assert.deepStrictEqual(yield* ids({ search: "brokerly" }), [broker.id])
        assert.deepStrictEqual(yield* ids({ search: member.email.toUpperCase() }), [member.id])
        assert.deepStrictEqual(yield* ids({ search: "Penny Test" }), [])
        assert.deepStrictEqual(yield* ids({ search: "Penny User" }), [pending.id])
        // % and _ are plain characters in a search, not wildcards.
        assert.deepStrictEqual(yield* ids({ search: "_100%" }), [odd.id])
        assert.deepStrictEqual(yield* ids({ search: "%" }), [odd.id])
        assert.deepStrictEqual(yield* ids({ search: "" }), everyone)
      }))

    it.effect("bad query parameters are 422 VALIDATION_ERROR naming each one", () =>
      Effect.gen(function*() {
        const { client, headers } = yield* adminCommunity()
        // Queries the contract refuses to send: raw.
        const bad = yield* call("GET", `${USERS}?page=0&per_page=101&status=sleeping&role=king`, headers)
        assert.strictEqual(bad.status, 422)
        assert.sameMembers(errorsOf(bad.body).map((e) => e.field), ["page", "per_page", "status", "role"])
        for (const query of ["page=abc", "per_page=1.5", "per_page=0", "page=-2"]) {
          const res = yield* call("GET", `${USERS}?${query}`, headers)
          assert.strictEqual(res.status, 422, query)
          assert.strictEqual(codeOf(res.body), "VALIDATION_ERROR")
        }
        yield* client.adminUsers.list({ urlParams: { per_page: 100 }, withResponse: true }).pipe(expectStatus(200))
      }))
  })

  describe("create and read", () => {
    it.effect("POST creates an active, approved user (D4 shape) who can sign in; UserCreated is recorded", () =>
      Effect.gen(function*() {
        const { admin, headers, tenant } = yield* adminCommunity()
        // An untrimmed e-mail, which the typed client refuses to send, and the exact body: raw.
        const res = yield* call("POST", USERS, headers, {
          email: " New.Person@Example.org ",
          first_name: "New",
          last_name: "Person",
          password: "a good password",
          role: "coordinator"
        })
        assert.strictEqual(res.status, 201, res.text)
        const data = dataOf<{ id: number }>(res.body)
        assert.deepStrictEqual(res.body, {
          data: {
            id: data.id,
            email: "New.Person@Example.org",
            first_name: "New",
            last_name: "Person",
            role: "coordinator",
            status: "active",
            is_approved: true
          },
          meta: {}
        })
        const login = yield* signIn({ email: "new.person@example.org", password: "a good password", tenant })
        assert.strictEqual(login.status, 200)
        assert.include(login.value!.user, { id: UserId.make(data.id), role: "coordinator" })
        const events = yield* eventsOf(tenant, "UserCreated")
        assert.deepInclude(events, {
          user_id: data.id,
          email: "New.Person@Example.org",
          role: "coordinator",
          is_super_admin: false,
          source: "admin",
          created_by: admin.id
        })
      }))

    it.effect("without a password the user is a member who cannot sign in until a reset", () =>
      Effect.gen(function*() {
        const { client, tenant } = yield* adminCommunity()
        const created = yield* client.adminUsers.create({
          payload: { email: "nopass@example.org", first_name: "No", last_name: "Pass" }
        })
        assert.include(created.data, { role: "member", status: "active", is_approved: true })
        const view = yield* client.adminUsers.get({ path: { id: created.data.id } })
        assert.include(view.data, { has_password: false, two_factor_enabled: false, preferred_language: "en" })
        for (const password of ["", TEST_PASSWORD]) {
          const login = yield* signIn({ email: "nopass@example.org", password, tenant })
          assert.strictEqual(login.status, 401)
          assert.strictEqual(login.failure?.code, "AUTH_INVALID_CREDENTIALS")
        }
      }))

    it.effect("an e-mail that exists in the community (any case) is 409 ALREADY_EXISTS on email", () =>
      Effect.gen(function*() {
        const { client, member } = yield* adminCommunity()
        const res = yield* client.adminUsers.create({
          payload: { email: member.email.toUpperCase(), first_name: "Copy", last_name: "Cat" }
        }).pipe(expectError(409, "ALREADY_EXISTS"))
        assert.deepStrictEqual(res.errors, [{
          code: "ALREADY_EXISTS",
          message: "An account with this e-mail exists",
          field: "email"
        }])
        // The same address in another community is fine.
        const other = yield* adminCommunity()
        yield* other.client.adminUsers.create({
          payload: { email: member.email, first_name: "Same", last_name: "Address" },
          withResponse: true
        }).pipe(expectStatus(201))
        const listed = yield* client.adminUsers.list({ urlParams: { search: member.email } })
        assert.strictEqual(listed.data.length, 1)
      }))

    it.effect("wrong types and bad values are 422 with one entry per field, never 5xx", () =>
      Effect.gen(function*() {
        const { headers } = yield* adminCommunity()
        // Bodies the contract refuses to send: raw.
        const bad = yield* call("POST", USERS, headers, {
          email: ["a@b.org"],
          first_name: 5,
          last_name: "",
          password: "short",
          role: "king",
          preferred_language: "xx"
        })
        assert.strictEqual(bad.status, 422, bad.text)
        assert.sameMembers(errorsOf(bad.body).map((e) => e.field), [
          "email",
          "first_name",
          "last_name",
          "password",
          "role",
          "preferred_language"
        ])
        for (const body of [null, [], "text", 42, { email: "not-an-email", first_name: "A", last_name: "B" }]) {
          const res = yield* call("POST", USERS, headers, body)
          assert.strictEqual(res.status, 422, JSON.stringify(body))
        }
        const broken = yield* rawRequest("POST", USERS, { headers, body: "{not json" })
        assert.strictEqual(broken.status, 400)
        assert.strictEqual(codeOf(broken.body), "INVALID_JSON")
      }))

    it.effect("GET /users/{id} is the admin view: login fields plus bio, location, dates and factors", () =>
      Effect.gen(function*() {
        const { headers, member } = yield* adminCommunity()
        const sql = yield* SqlClient.SqlClient
        yield* sql`UPDATE users SET bio = 'Gardener', location = 'Leeds', last_login_at = '2024-05-01T10:00:00Z'
                   WHERE id = ${member.id}`
        // The times as they go over the wire: raw.
        const res = yield* call("GET", `${USERS}/${member.id}`, headers)
        assert.strictEqual(res.status, 200)
        const data = dataOf(res.body)
        assert.include(data, {
          id: member.id,
          tenant_id: member.tenant.id,
          email: member.email,
          first_name: "Mia",
          last_name: "Member",
          role: "member",
          status: "active",
          is_approved: true,
          is_admin: false,
          is_super_admin: false,
          is_god: false,
          bio: "Gardener",
          location: "Leeds",
          avatar_url: null,
          has_password: true,
          two_factor_enabled: false,
          last_login_at: "2024-05-01T10:00:00.000Z"
        })
        assert.match(String(data["created_at"]), /^\d{4}-\d\d-\d\dT.*Z$/)
      }))
  })

  describe("update", () => {
    it.effect("PUT changes names, e-mail, role, language and profile fields; the user sees the change", () =>
      Effect.gen(function*() {
        const { admin, client, headers, member, tenant } = yield* adminCommunity()
        // An untrimmed name, which the typed client refuses to send: raw.
        const res = yield* call("PUT", `${USERS}/${member.id}`, headers, {
          first_name: " Mia ",
          last_name: "Lopez",
          email: "mia@example.org",
          role: "broker",
          preferred_language: "es",
          bio: "Bakes bread",
          location: "Bristol",
          avatar_url: "https://img.example.org/mia.png",
          federation_opt_in: true
        })
        assert.strictEqual(res.status, 200, res.text)
        assert.include<Record<string, unknown>>(dataOf(res.body), {
          id: member.id,
          first_name: "Mia",
          last_name: "Lopez",
          email: "mia@example.org",
          role: "broker",
          preferred_language: "es",
          bio: "Bakes bread",
          location: "Bristol",
          avatar_url: "https://img.example.org/mia.png",
          federation_opt_in: true
        })
        const login = yield* signIn({ email: "mia@example.org", password: member.password, tenant })
        assert.strictEqual(login.status, 200)
        assert.include(login.value!.user, { role: "broker", first_name: "Mia" })
        const path = { id: UserId.make(member.id) }
        const cleared = yield* client.adminUsers.update({ path, payload: { bio: null, location: null } })
        assert.include(cleared.data, { bio: null, location: null, first_name: "Mia" })
        const roleEvents = yield* eventsOf(tenant, "UserRoleChanged")
        assert.deepStrictEqual(roleEvents, [{ user_id: member.id, from: "member", to: "broker", changed_by: admin.id }])
        yield* client.adminUsers.update({ path, payload: {}, withResponse: true }).pipe(expectStatus(200))
      }))

    it.effect("an e-mail of another user is 409 on email; bad types are 422; an unknown id is 404", () =>
      Effect.gen(function*() {
        const { admin, client, headers, member } = yield* adminCommunity()
        const path = { id: UserId.make(member.id) }
        const taken = yield* client.adminUsers.update({ path, payload: { email: admin.email.toUpperCase() } }).pipe(
          expectError(409, "ALREADY_EXISTS")
        )
        assert.deepInclude(taken.errors[0], { code: "ALREADY_EXISTS", field: "email" })
        yield* client.adminUsers.update({ path, payload: { email: member.email.toUpperCase() }, withResponse: true })
          .pipe(expectStatus(200))
        // A body the contract refuses to send: raw.
        const bad = yield* call("PUT", `${USERS}/${member.id}`, headers, {
          role: "owner",
          first_name: ["A"],
          federation_opt_in: "yes",
          bio: 7,
          preferred_language: "klingon"
        })
        assert.strictEqual(bad.status, 422)
        assert.sameMembers(errorsOf(bad.body).map((e) => e.field), [
          "role",
          "first_name",
          "federation_opt_in",
          "bio",
          "preferred_language"
        ])
        const unknown = yield* failureOf(
          client.adminUsers.update({ path: { id: UserId.make(999999999) }, payload: { first_name: "X" } })
        )
        assert.strictEqual(unknown.status, 404)
      }))
  })

  describe("status", () => {
    it.effect("approve activates a pending user, who can then sign in", () =>
      Effect.gen(function*() {
        const { admin, client, tenant } = yield* adminCommunity()
        const pending = yield* makeUser(tenant, { status: "pending", isApproved: false })
        const before = yield* signIn(pending)
        assert.strictEqual(before.failure?.code, "AUTH_ACCOUNT_PENDING_APPROVAL")
        const approved = yield* client.adminUsers.approve({ path: { id: UserId.make(pending.id) } })
        assert.deepStrictEqual(approved, { data: { id: pending.id, status: "active", is_approved: true }, meta: {} })
        assert.strictEqual((yield* signIn(pending)).status, 200)
        const events = yield* eventsOf(tenant, "UserApproved")
        assert.deepStrictEqual(events, [{
          user_id: pending.id,
          previous_status: "pending",
          status: "active",
          changed_by: admin.id
        }])
      }))

    it.effect("suspend and ban end the user's sessions at once; login is 403 AUTH_ACCOUNT_SUSPENDED; reactivate", () =>
      Effect.gen(function*() {
        const { client, tenant, visitor } = yield* adminCommunity()
        for (const action of ["suspend", "ban"] as const) {
          const user = yield* makeUser(tenant)
          const session = yield* signedIn(user)
          const refresh = (yield* signIn(user)).value!.refresh_token
          yield* session.client.users.me({ withResponse: true }).pipe(expectStatus(200))

          const path = { id: UserId.make(user.id) }
          const res = yield* client.adminUsers[action]({ path, withResponse: true }).pipe(expectStatus(200))
          const status = action === "suspend" ? "suspended" : "banned"
          assert.deepStrictEqual(res.data, { id: user.id, status, is_approved: true })

          yield* session.client.users.me().pipe(expectError(401, "AUTH_REQUIRED"))
          const refreshed = yield* failureOf(visitor.client.auth.refresh({ payload: { refresh_token: refresh } }))
          assert.strictEqual(refreshed.status, 401)
          const login = yield* signIn(user)
          assert.strictEqual(login.status, 403)
          assert.strictEqual(login.failure?.code, "AUTH_ACCOUNT_SUSPENDED")
          assert.lengthOf(yield* eventsOf(tenant, action === "suspend" ? "UserSuspended" : "UserBanned"), 1)

          const back = yield* client.adminUsers.reactivate({ path })
          assert.deepStrictEqual(back.data, { id: user.id, status: "active", is_approved: true })
          assert.strictEqual((yield* signIn(user)).status, 200)
        }
        assert.lengthOf(yield* eventsOf(tenant, "UserReactivated"), 2)
      }))

    it.effect("community admins cannot change a super-admin's account; platform super-admins can", () =>
      Effect.gen(function*() {
        const { client, tenant } = yield* adminCommunity()
        const flagged = yield* makeUser(tenant)
        const sql = yield* SqlClient.SqlClient
        yield* sql`UPDATE users SET is_super_admin = true WHERE id = ${flagged.id}`
        const path = { id: UserId.make(flagged.id) }
        const attempts: ReadonlyArray<Effect.Effect<unknown, unknown>> = [
          client.adminUsers.suspend({ path }),
          client.adminUsers.ban({ path }),
          client.adminUsers.setPassword({ path, payload: { password: "long enough" } }),
          client.adminUsers.delete({ path })
        ]
        for (const attempt of attempts) assert.strictEqual((yield* failureOf(attempt)).status, 403)
        const platform = yield* signedIn(yield* makeSuperAdmin(), tenant)
        yield* platform.client.adminUsers.suspend({ path, withResponse: true }).pipe(expectStatus(200))
      }))
  })

  describe("delete", () => {
    it.effect("erases personal data, deactivates, ends sessions and keeps the row; login fails afterwards", () =>
      Effect.gen(function*() {
        const { admin, client, tenant } = yield* adminCommunity()
        const user = yield* makeUser(tenant, { firstName: "Erin", lastName: "Gone" })
        const path = { id: UserId.make(user.id) }
        const sql = yield* SqlClient.SqlClient
        yield* sql`UPDATE users SET bio = 'bio', avatar_url = 'https://x/y.png', location = 'Hull',
                   two_factor_secret = 'SECRET', federation_opt_in = true WHERE id = ${user.id}`
        yield* sql`INSERT INTO user_consents (tenant_id, user_id, consent_type, granted)
                   VALUES (${tenant.id}, ${user.id}, 'terms', true)`
        yield* client.adminUsers.sendPasswordReset({ path })
        const session = yield* signedIn(user)

        const res = yield* client.adminUsers.delete({ path, withResponse: true }).pipe(expectStatus(200))
        assert.deepStrictEqual(res, { data: { id: user.id, deleted: true }, meta: {} })

        const row = yield* userRow(user.id)
        assert.include(row, {
          email: `deleted-${user.id}@deleted.invalid`,
          first_name: "Deleted",
          last_name: "User",
          bio: null,
          avatar_url: null,
          location: null,
          password_hash: null,
          two_factor_secret: null,
          federation_opt_in: false,
          status: "suspended",
          tenant_id: String(tenant.id)
        })
        assert.notStrictEqual(row["deleted_at"], null)
        assert.strictEqual((yield* failureOf(session.client.users.me())).status, 401)
        const login = yield* signIn(user)
        assert.strictEqual(login.status, 401)
        assert.strictEqual(login.failure?.code, "AUTH_INVALID_CREDENTIALS")
        assert.lengthOf(yield* liveResetTokens(user.id), 0)
        // Unsent mail is dropped; mail the mailer already sent keeps neither address nor content.
        for (const mail of yield* mailsOf(user.id)) {
          assert.deepInclude(mail, { to_email: "", status: "sent" })
          assert.deepStrictEqual(mail.data, {})
        }

        assert.strictEqual((yield* failureOf(client.adminUsers.get({ path }))).status, 404)
        assert.strictEqual((yield* failureOf(client.adminUsers.delete({ path }))).status, 404)
        const listed = yield* client.adminUsers.list({ urlParams: { per_page: 100 } })
        assert.notInclude(listed.data.map((u) => u.id), user.id)
        assert.deepStrictEqual(yield* eventsOf(tenant, "UserErased"), [{ user_id: user.id, erased_by: admin.id }])
        // The address is free again for a new account.
        yield* client.adminUsers.create({
          payload: { email: user.email, first_name: "Erin", last_name: "New" },
          withResponse: true
        }).pipe(expectStatus(201))
      }))
  })

  describe("import", () => {
    it.effect("creates the valid rows and reports each bad one with its line and field", () =>
      Effect.gen(function*() {
        const { admin, client, headers, member, tenant } = yield* adminCommunity()
        const csv = [
          "\uFEFFEmail,First_Name,last_name,Role,notes",
          "ann@example.org,Ann,Archer,,likes tea",
          "\"bob@example.org\",\"Bob, Jr.\",Baker,broker,",
          "not-an-email,Cat,,member,",
          `${member.email.toUpperCase()},Dup,Existing,,`,
          "ann@example.org,Ann,Again,,",
          "dan@example.org,Dan,Diver,pilot,",
          ",,,,",
          "eve@example.org,Eve,\"Multi",
          "Line\",ADMIN,"
        ].join("\r\n")
        // Multipart: raw.
        const res = yield* uploadCsv(headers, csv)
        assert.strictEqual(res.status, 200, res.text)
        const data = dataOf<{ created: number; errors: Array<Record<string, unknown>> }>(res.body)
        assert.strictEqual(data.created, 3)
        assert.deepStrictEqual(data.errors.map((e) => [e["row"], e["field"]]), [
          [4, "email"],
          [4, "last_name"],
          [5, "email"],
          [6, "email"],
          [7, "role"]
        ])
        for (const e of data.errors) assert.isString(e["message"])

        const listed = yield* client.adminUsers.list({ urlParams: { per_page: 100 } })
        const byEmail = new Map(listed.data.map((u) => [u.email, u]))
        assert.include(byEmail.get("ann@example.org"), { first_name: "Ann", last_name: "Archer", role: "member" })
        assert.include(byEmail.get("bob@example.org"), { first_name: "Bob, Jr.", role: "broker" })
        assert.include(byEmail.get("eve@example.org"), { last_name: "Multi\r\nLine", role: "admin" })
        for (const email of ["ann@example.org", "bob@example.org", "eve@example.org"]) {
          assert.include(byEmail.get(email), { status: "active", is_approved: true, has_password: false })
        }
        assert.strictEqual(listed.meta.total, 6)
        const events = (yield* eventsOf(tenant, "UserCreated")).filter((e) => e["source"] === "import")
        assert.lengthOf(events, 3)
        assert.strictEqual(events[0]!["created_by"], admin.id)
      }))

    it.effect("a file that cannot be imported is 422 on field file; nothing is created", () =>
      Effect.gen(function*() {
        const { client, headers } = yield* adminCommunity()
        // Multipart, odd bodies and content types: raw.
        const cases: Array<readonly [string | undefined, string]> = [
          [undefined, "file"],
          ["", "file"],
          ["email,first_name\nann@example.org,Ann\n", "file"],
          ["email,first_name,last_name\n", "file"],
          ["email,first_name,last_name\n\"ann@example.org,Ann,Archer\n", "file"],
          [
            `email,first_name,last_name\n${"a@example.org,A,B\n".repeat(IMPORT_MAX_ROWS + 1)}`,
            "file"
          ]
        ]
        for (const [csv, field] of cases) {
          const res = yield* uploadCsv(headers, csv)
          assert.strictEqual(res.status, 422, `${JSON.stringify(csv?.slice(0, 40))}: ${res.text}`)
          assert.deepInclude(errorsOf(res.body)[0], { code: "VALIDATION_ERROR", field })
        }
        const wrongField = yield* uploadCsv(headers, "email,first_name,last_name\na@example.org,A,B\n", "upload")
        assert.strictEqual(wrongField.status, 422)
        const notUtf8 = yield* Effect.gen(function*() {
          const client = yield* HttpClient.HttpClient
          const form = new FormData()
          form.append("file", new Blob([new Uint8Array([0x65, 0x6d, 0xff, 0xfe, 0x0a])], { type: "text/csv" }), "x.csv")
          const response = yield* client.execute(
            HttpClientRequest.post(`${USERS}/import`).pipe(
              HttpClientRequest.setHeaders(headers),
              HttpClientRequest.bodyFormData(form)
            )
          )
          return response.status
        }).pipe(Effect.scoped, Effect.orDie)
        assert.strictEqual(notUtf8, 422)
        const json = yield* call("POST", `${USERS}/import`, headers, { file: "email,first_name,last_name" })
        assert.strictEqual(json.status, 422)
        // Broken multipart bodies are the client's mistake too: 400 without a boundary (the edge), else 422.
        for (
          const [contentType, body, expected] of [
            ["multipart/form-data", "email,first_name,last_name\n", 400],
            ["multipart/form-data; boundary=xyz", "no parts here", 422],
            ["multipart/form-data; boundary=xyz", "--xyz\r\nContent-Disposition: form-data; name=\"file\"\r\n", 422],
            ["text/csv", "email,first_name,last_name\na@example.org,A,B\n", 422]
          ] as const
        ) {
          const status = yield* Effect.gen(function*() {
            const client = yield* HttpClient.HttpClient
            const response = yield* client.execute(
              HttpClientRequest.post(`${USERS}/import`).pipe(
                HttpClientRequest.setHeaders(headers),
                HttpClientRequest.bodyText(body, contentType)
              )
            )
            return response.status
          }).pipe(Effect.scoped, Effect.orDie)
          assert.strictEqual(status, expected, `${contentType}: ${body}`)
        }
        const listed = yield* client.adminUsers.list({ urlParams: {} })
        assert.strictEqual(listed.meta.total, 3)
      }))

    it.effect("the template is text/csv with the header row", () =>
      Effect.gen(function*() {
        const { client } = yield* adminCommunity()
        const [text, res] = yield* client.adminUsers.importTemplate({ withResponse: true })
        assert.strictEqual(res.status, 200)
        assert.match(res.headers["content-type"] ?? "", /^text\/csv/)
        assert.match(res.headers["content-disposition"] ?? "", /attachment; filename="users-import-template.csv"/)
        assert.strictEqual(text, IMPORT_TEMPLATE)
        assert.strictEqual(text, "email,first_name,last_name,role\r\n")
      }))
  })

  describe("passwords and e-mails", () => {
    it.effect("POST password sets a new password and ends the user's sessions; 8+ characters", () =>
      Effect.gen(function*() {
        const { admin, client, headers, tenant } = yield* adminCommunity()
        const user = yield* makeUser(tenant)
        const session = yield* signedIn(user)
        const res = yield* client.adminUsers.setPassword({
          path: { id: UserId.make(user.id) },
          payload: { password: "brand new secret" },
          withResponse: true
        }).pipe(expectStatus(200))
        assert.deepStrictEqual(res.data, { id: user.id, password_changed: true })
        assert.strictEqual((yield* failureOf(session.client.users.me())).status, 401)
        assert.strictEqual((yield* signIn(user)).status, 401)
        assert.strictEqual((yield* signIn(user, "brand new secret")).status, 200)
        assert.deepStrictEqual(yield* eventsOf(tenant, "UserPasswordSet"), [{ user_id: user.id, set_by: admin.id }])
        // Bodies the contract refuses to send: raw.
        for (const body of [{ password: "short" }, { password: 12345678 }, {}, { password: null }]) {
          const bad = yield* call("POST", `${USERS}/${user.id}/password`, headers, body)
          assert.strictEqual(bad.status, 422, JSON.stringify(body))
          assert.deepInclude(errorsOf(bad.body)[0], { code: "VALIDATION_ERROR", field: "password" })
        }
      }))

    it.effect("send-password-reset queues a password_reset mail; only the token's SHA-256 is stored, 24 h", () =>
      Effect.gen(function*() {
        const { client, member, tenant } = yield* adminCommunity()
        const path = { id: UserId.make(member.id) }
        const res = yield* client.adminUsers.sendPasswordReset({ path, withResponse: true }).pipe(expectStatus(200))
        assert.deepStrictEqual(res, { data: { queued: true }, meta: {} })
        const [mail] = yield* mailsOf(member.id)
        assert.include(mail, { to_email: member.email, template: "password_reset" })
        // Queued, and sent within a second or so by the mailer (as `.eml` here: no SMTP_URL).
        assert.oneOf(mail!.status, ["pending", "sent"])
        assert.include(mail!.data, { first_name: "Mia", tenant_slug: tenant.slug, tenant_name: tenant.name })
        const token = String(mail!.data["token"])
        assert.isAbove(token.length, 30)
        const [stored] = yield* liveResetTokens(member.id)
        assert.strictEqual(stored!.token_hash, hashToken(token))
        assert.notStrictEqual(stored!.token_hash, token)
        assert.closeTo(stored!.seconds_left, 86_400, 60)
        // A new link retires the previous one.
        yield* client.adminUsers.sendPasswordReset({ path })
        const live = yield* liveResetTokens(member.id)
        assert.lengthOf(live, 1)
        assert.notStrictEqual(live[0]!.token_hash, stored!.token_hash)
        assert.lengthOf(yield* mailsOf(member.id), 2)
      }))

    it.effect("send-welcome-email queues a welcome mail, with a set-password token when there is no password", () =>
      Effect.gen(function*() {
        const { client, member } = yield* adminCommunity()
        const res = yield* client.adminUsers.sendWelcomeEmail({ path: { id: UserId.make(member.id) } })
        assert.deepStrictEqual(res, { data: { queued: true }, meta: {} })
        const [mail] = yield* mailsOf(member.id)
        assert.include(mail, { to_email: member.email, template: "welcome" })
        assert.oneOf(mail!.status, ["pending", "sent"])
        assert.notProperty(mail!.data, "set_password")

        const created = yield* client.adminUsers.create({
          payload: { email: "fresh@example.org", first_name: "F", last_name: "R" }
        })
        const id = created.data.id
        yield* client.adminUsers.sendWelcomeEmail({ path: { id } })
        const [welcome] = yield* mailsOf(id)
        const setPassword = welcome!.data["set_password"] as { token: string; expires_at: string }
        assert.strictEqual((yield* liveResetTokens(id))[0]!.token_hash, hashToken(setPassword.token))
        assert.isTrue(Date.parse(setPassword.expires_at) > Date.now() + 86_000_000)
      }))
  })

  describe("super-admin, impersonation, consents, 2FA", () => {
    it.effect("PUT super-admin: platform super-admins only; the flag is stored", () =>
      Effect.gen(function*() {
        const { client, member, tenant } = yield* adminCommunity()
        const path = { id: UserId.make(member.id) }
        yield* client.adminUsers.setSuperAdmin({ path, payload: { is_super_admin: true } }).pipe(
          expectError(403, "FORBIDDEN")
        )
        const platform = yield* signedIn(yield* makeSuperAdmin(), tenant)
        const granted = yield* platform.client.adminUsers.setSuperAdmin({
          path,
          payload: { is_super_admin: true },
          withResponse: true
        }).pipe(expectStatus(200))
        assert.deepStrictEqual(granted.data, { id: member.id, is_super_admin: true })
        assert.include(yield* userRow(member.id), { is_super_admin: true })
        const revoked = yield* platform.client.adminUsers.setSuperAdmin({ path, payload: { is_super_admin: false } })
        assert.deepStrictEqual(revoked.data, { id: member.id, is_super_admin: false })
        // Bodies the contract refuses to send: raw.
        const platformHeaders = platform.headers
        for (const body of [{ is_super_admin: "yes" }, {}, { is_super_admin: 1 }]) {
          const bad = yield* call("PUT", `${USERS}/${member.id}/super-admin`, platformHeaders, body)
          assert.strictEqual(bad.status, 422, JSON.stringify(body))
        }
      }))

    it.effect("impersonate gives a 300 s token acting as the member, without refresh; UserImpersonated recorded", () =>
      Effect.gen(function*() {
        const { admin, client, member, tenant } = yield* adminCommunity()
        const { data } = yield* client.adminUsers.impersonate({ path: { id: UserId.make(member.id) } })
        assert.include(data, { token_type: "Bearer", expires_in: 300, impersonation: true })
        assert.include(data.user, { id: UserId.make(member.id), email: member.email, role: "member" })
        const asMember = yield* apiClient({ ...tenantHeaders(tenant), authorization: `Bearer ${data.access_token}` })
        const me = yield* asMember.users.me({ withResponse: true }).pipe(expectStatus(200))
        assert.strictEqual(me.data.id, member.id)
        // The member's powers only: the admin API stays closed to this token.
        assert.strictEqual((yield* failureOf(asMember.adminUsers.list({ urlParams: {} }))).status, 403)

        const sql = yield* SqlClient.SqlClient
        const [session] = yield* sql<{ kind: string; impersonator_id: string; seconds_left: number; refresh: number }>`
          SELECT s.kind, s.impersonator_id,
                 extract(epoch FROM a.expires_at - now())::float8 AS seconds_left,
                 (SELECT count(*)::int FROM refresh_tokens r WHERE r.session_id = s.id) AS refresh
          FROM access_tokens a JOIN auth_sessions s ON s.id = a.session_id
          WHERE a.token_hash = ${hashToken(data.access_token)}`
        assert.include(session, { kind: "impersonation", impersonator_id: String(admin.id), refresh: 0 })
        assert.isAtMost(session!.seconds_left, 300)
        assert.isAbove(session!.seconds_left, 240)
        assert.deepInclude(yield* eventsOf(tenant, "UserImpersonated"), {
          user_id: member.id,
          impersonator_id: admin.id,
          session_id: (yield* sql<{ id: number }>`SELECT id::int FROM auth_sessions WHERE user_id = ${member.id}
            AND kind = 'impersonation'`)[0]!.id
        })
        // Past its 300 seconds the token is refused.
        yield* sql`UPDATE access_tokens SET expires_at = now() - interval '1 second'
                   WHERE token_hash = ${hashToken(data.access_token)}`
        assert.strictEqual((yield* failureOf(asMember.users.me())).status, 401)
      }))

    it.effect("tenant admins may not impersonate admins, brokers, coordinators or inactive users; super-admins may", () =>
      Effect.gen(function*() {
        const { client, tenant } = yield* adminCommunity()
        const impersonate = (by: ApiClient, user: TestUser) =>
          by.adminUsers.impersonate({ path: { id: UserId.make(user.id) }, withResponse: true })
        const staff = [
          yield* makeAdmin(tenant),
          yield* makeUser(tenant, { role: "broker" }),
          yield* makeUser(tenant, { role: "coordinator" })
        ]
        for (const user of staff) yield* impersonate(client, user).pipe(expectError(403, "FORBIDDEN"))
        const pending = yield* makeUser(tenant, { status: "pending", isApproved: false })
        assert.strictEqual((yield* failureOf(impersonate(client, pending))).status, 403)
        const platform = yield* signedIn(yield* makeSuperAdmin(), tenant)
        const asAdmin = yield* impersonate(platform.client, staff[0]!).pipe(expectStatus(200))
        const impersonating = yield* apiClient({
          ...tenantHeaders(tenant),
          authorization: `Bearer ${asAdmin.data.access_token}`
        })
        // An impersonation session cannot start another one.
        const member = yield* makeUser(tenant)
        assert.strictEqual((yield* failureOf(impersonate(impersonating, member))).status, 403)
      }))

    it.effect("GET consents lists the user's consent records, newest first", () =>
      Effect.gen(function*() {
        const { client, member, tenant } = yield* adminCommunity()
        const path = { id: UserId.make(member.id) }
        const none = yield* client.adminUsers.consents({ path })
        assert.deepStrictEqual(none.data, [])
        const sql = yield* SqlClient.SqlClient
        yield* sql`INSERT INTO user_consents (tenant_id, user_id, consent_type, granted, created_at) VALUES
          (${tenant.id}, ${member.id}, 'terms', true, '2024-01-01T00:00:00Z'),
          (${tenant.id}, ${member.id}, 'marketing', false, '2024-02-01T00:00:00Z')`
        const res = yield* client.adminUsers.consents({ path, withResponse: true }).pipe(expectStatus(200))
        const rows = asJson(res.data) as Array<Record<string, unknown>>
        assert.deepStrictEqual(rows.map((r) => [r["consent_type"], r["granted"], r["created_at"]]), [
          ["marketing", false, "2024-02-01T00:00:00.000Z"],
          ["terms", true, "2024-01-01T00:00:00.000Z"]
        ])
        assert.isNumber(rows[0]!["id"])
      }))

    it.effect("reset-2fa clears the second factor and says whether there was one", () =>
      Effect.gen(function*() {
        const { client, member, tenant } = yield* adminCommunity()
        const sql = yield* SqlClient.SqlClient
        yield* sql`UPDATE users SET two_factor_secret = 'JBSWY3DPEHPK3PXP' WHERE id = ${member.id}`
        const path = { id: UserId.make(member.id) }
        const first = yield* client.adminUsers.resetTwoFactor({ path, withResponse: true }).pipe(expectStatus(200))
        assert.deepStrictEqual(first.data, { id: member.id, two_factor_was_enabled: true })
        assert.include(yield* userRow(member.id), { two_factor_secret: null })
        const second = yield* client.adminUsers.resetTwoFactor({ path })
        assert.deepStrictEqual(second.data, { id: member.id, two_factor_was_enabled: false })
        assert.lengthOf(yield* eventsOf(tenant, "UserTwoFactorReset"), 1)
      }))
  })
})

describe("CSV import parsing (pure)", () => {
  it("parses quotes, escaped quotes, CRLF, multi-line fields and a BOM; skips empty lines", () => {
    const parsed = parseCsv("\uFEFFa,b\r\n\"x, y\",\"say \"\"hi\"\"\"\n\n,,\n\"multi\nline\",z")
    assert.deepStrictEqual(Either.getOrThrow(parsed), [
      { line: 1, fields: ["a", "b"] },
      { line: 2, fields: ["x, y", "say \"hi\""] },
      { line: 5, fields: ["multi\nline", "z"] }
    ])
  })

  it("refuses an unclosed quote and text after a closing quote", () => {
    assert.isTrue(Either.isLeft(parseCsv("a,\"b\nc")))
    assert.isTrue(Either.isLeft(parseCsv("\"a\"b,c")))
  })

  it("plans rows: header in any order and case, defaults the role, reports each bad field", () => {
    const plan = Either.getOrThrow(planImport("Last_Name,EMAIL,first_name\nLee,ann@example.org,Ann\n,bad,Bo\n"))
    assert.deepStrictEqual(plan.candidates, [
      { row: 2, email: "ann@example.org", firstName: "Ann", lastName: "Lee", role: "member" }
    ])
    assert.deepStrictEqual(plan.errors.map((e) => [e.row, e.field]), [[3, "email"], [3, "last_name"]])
    assert.isTrue(Either.isLeft(planImport("email,first_name\n")))
  })
})
