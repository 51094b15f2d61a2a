import { assert, describe, layer } from "@effect/vitest"
import type { CursorMeta } from "@timebank/domain"
import { OrganisationId, RecordId } from "@timebank/domain"
import { hourPayment, isoDate } from "@timebank/server"
import { Effect } from "effect"
import { codeOf, dataOf, fieldOf } from "./fixtures/bodies.js"
import { type ApiClient, apiClient, expectWire, pageCursor, wireClient } from "./fixtures/client.js"
import { type Actor, actor } from "./fixtures/community.js"
import { rawRequest, TestApp } from "./fixtures/TestApp.js"
import { authHeaders, makeAdmin, makeSuperAdmin, makeUser } from "./fixtures/users.js"
import {
  makeApplication,
  makeHours,
  makeMembership,
  makeOpportunity,
  makeOrganisation,
  organisationCommunity,
  type OrganisationCommunityOptions,
  statusAndCodeOf,
  type TestOrganisation
} from "./fixtures/volunteering.js"

type Headers = Record<string, string>

const includes = (actual: unknown, expected: Record<string, unknown>) =>
  assert.deepInclude<Record<string, unknown>>(actual as Record<string, unknown>, expected)

const ORGANISATIONS = "/api/v2/volunteering/organisations"

/** Every dashboard route of organisation `id` through `client`, each answering `[status, code]`. */
const everyRoute = (client: ApiClient, id: OrganisationId) => {
  const dashboard = client.organisationDashboard
  return {
    stats: statusAndCodeOf(dashboard.stats({ path: { id }, withResponse: true })),
    volunteers: statusAndCodeOf(dashboard.volunteers({ path: { id }, urlParams: {}, withResponse: true })),
    applications: statusAndCodeOf(dashboard.applications({ path: { id }, urlParams: {}, withResponse: true })),
    pendingHours: statusAndCodeOf(dashboard.pendingHours({ path: { id }, urlParams: {}, withResponse: true })),
    wallet: statusAndCodeOf(dashboard.wallet({ path: { id }, withResponse: true })),
    walletTransactions: statusAndCodeOf(
      dashboard.walletTransactions({ path: { id }, urlParams: {}, withResponse: true })
    ),
    deposit: statusAndCodeOf(
      dashboard.deposit({ path: { id }, headers: {}, payload: { amount: 1 }, withResponse: true })
    ),
    autoPay: statusAndCodeOf(dashboard.autoPay({ path: { id }, payload: { enabled: true }, withResponse: true }))
  }
}

/** The read routes of `everyRoute`. */
const readRoutes = (client: ApiClient, id: OrganisationId) => {
  const { autoPay: _autoPay, deposit: _deposit, ...reads } = everyRoute(client, id)
  return reads
}

/** Every dashboard route on the wire, for ids the typed client cannot put in a path. */
const rawRoutes = (id: number | string) => [
  { method: "GET" as const, path: `${ORGANISATIONS}/${id}/stats` },
  { method: "GET" as const, path: `${ORGANISATIONS}/${id}/volunteers` },
  { method: "GET" as const, path: `${ORGANISATIONS}/${id}/applications` },
  { method: "GET" as const, path: `${ORGANISATIONS}/${id}/hours/pending` },
  { method: "GET" as const, path: `${ORGANISATIONS}/${id}/wallet` },
  { method: "GET" as const, path: `${ORGANISATIONS}/${id}/wallet/transactions` },
  { method: "POST" as const, path: `${ORGANISATIONS}/${id}/wallet/deposit`, body: { amount: 1 } },
  { method: "PUT" as const, path: `${ORGANISATIONS}/${id}/wallet/auto-pay`, body: { enabled: true } }
]

const call = (method: "GET" | "POST" | "PUT", path: string, headers: Headers, body?: unknown) =>
  rawRequest(method, path, { headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })

const get = (path: string, headers: Headers) => call("GET", path, headers)

/** The shared community with an organisation (active unless given) run by Olga Owner. */
const community = (options: OrganisationCommunityOptions = {}) => organisationCommunity(options)

const statsOf = (organisation: TestOrganisation, who: { readonly client: ApiClient }) =>
  Effect.map(who.client.organisationDashboard.stats({ path: { id: organisation.id } }), (res) => res.data)

/** The URL params of one page of a dashboard list. */
type PageParams = { readonly per_page?: number; readonly cursor?: number }

/** Walks a cursor list to its end, passing each page's `meta.cursor` back; asserts the meta of every page. */
const walk = <A, E, R>(
  page: (urlParams: PageParams) => Effect.Effect<
    { readonly data: ReadonlyArray<A>; readonly meta: CursorMeta },
    E,
    R
  >,
  perPage: number
) =>
  Effect.gen(function*() {
    const pages: Array<ReadonlyArray<A>> = []
    let cursor: string | undefined
    for (let guard = 0; guard < 50; guard++) {
      const { data, meta } = yield* page({
        per_page: perPage,
        ...(cursor === undefined ? {} : { cursor: pageCursor(RecordId, cursor) })
      })
      assert.strictEqual(meta.per_page, perPage)
      pages.push(data)
      if (!meta.has_more) {
        assert.notProperty(meta, "cursor")
        return pages
      }
      assert.isString(meta.cursor)
      cursor = meta.cursor
    }
    return assert.fail("the list never ended")
  })

layer(TestApp(), { excludeTestServices: true, timeout: "180 seconds" })("organisation dashboards", (it) => {
  describe("access", () => {
    it.effect("the creator, active owners and admins, and a visiting site super-admin read every dashboard", () =>
      Effect.gen(function*() {
        const c = yield* community()
        // The creator keeps access through the creator rule even without a membership row.
        yield* makeMembership(c.organisation, c.owner, "owner", "removed")
        const coOwner = yield* actor(yield* makeUser(c.tenant))
        const admin = yield* actor(yield* makeUser(c.tenant))
        yield* makeMembership(c.organisation, coOwner, "owner", "active")
        yield* makeMembership(c.organisation, admin, "admin", "active")
        const superAdmin = yield* apiClient(yield* authHeaders(yield* makeSuperAdmin(), c.tenant))
        const callers = { creator: c.owner.client, owner: coOwner.client, admin: admin.client, superAdmin }
        for (const [who, client] of Object.entries(callers)) {
          for (const [route, answer] of Object.entries(readRoutes(client, c.organisation.id))) {
            assert.deepStrictEqual(yield* answer, [200, undefined], `${who} ${route}`)
          }
          const toggled = yield* statusAndCodeOf(client.organisationDashboard.autoPay({
            path: { id: c.organisation.id },
            payload: { enabled: who !== "superAdmin" },
            withResponse: true
          }))
          assert.deepStrictEqual(toggled, [200, undefined], who)
        }
        // The super-admin went last and switched it off.
        assert.strictEqual((yield* statsOf(c.organisation, c.owner)).auto_pay_enabled, false)
      }))

    it.effect("members, `member`-role, pending, invited or removed admins and community admins get 403 everywhere", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const plain = yield* actor(yield* makeUser(c.tenant))
        const memberRole = yield* actor(yield* makeUser(c.tenant))
        const pendingAdmin = yield* actor(yield* makeUser(c.tenant))
        const invitedOwner = yield* actor(yield* makeUser(c.tenant))
        const removedAdmin = yield* actor(yield* makeUser(c.tenant))
        const communityAdmin = yield* actor(yield* makeAdmin(c.tenant))
        yield* makeMembership(c.organisation, memberRole, "member", "active")
        yield* makeMembership(c.organisation, pendingAdmin, "admin", "pending")
        yield* makeMembership(c.organisation, invitedOwner, "owner", "invited")
        yield* makeMembership(c.organisation, removedAdmin, "admin", "removed")
        const refused: Record<string, Actor> = {
          plain,
          memberRole,
          pendingAdmin,
          invitedOwner,
          removedAdmin,
          communityAdmin
        }
        for (const [who, user] of Object.entries(refused)) {
          for (const [route, answer] of Object.entries(everyRoute(user.client, c.organisation.id))) {
            assert.deepStrictEqual(yield* answer, [403, "FORBIDDEN"], `${who} ${route}`)
          }
        }
        // Nothing changed: no deposit, auto-pay still off.
        const stats = yield* statsOf(c.organisation, c.owner)
        assert.deepInclude(stats, { balance: 0, auto_pay_enabled: false })
      }))

    it.effect("another community's organisation, unknown and malformed ids are 404 on every route", () =>
      Effect.gen(function*() {
        const a = yield* community()
        const b = yield* community()
        // B's organisation owner, in B, asking for A's organisation; then A's owner for an unknown one.
        const asked = [
          ["cross-tenant", b.owner.client, a.organisation.id],
          ["987654321", a.owner.client, OrganisationId.make(987654321)]
        ] as const
        for (const [what, client, id] of asked) {
          for (const [route, answer] of Object.entries(everyRoute(client, id))) {
            assert.deepStrictEqual(yield* answer, [404, "NOT_FOUND"], `${what} ${route}`)
          }
        }
        // Raw: ids the typed client cannot put in the path.
        for (const id of ["abc", 0, -3]) {
          for (const route of rawRoutes(id)) {
            const res = yield* call(route.method, route.path, a.owner.headers, route.body)
            assert.deepStrictEqual([res.status, codeOf(res.body)], [404, "NOT_FOUND"], `${id} ${route.path}`)
          }
        }
        // A's organisation is untouched and still A's.
        assert.strictEqual((yield* statsOf(a.organisation, a.owner)).auto_pay_enabled, false)
      }))

    it.effect("without a token 401; with volunteering off 403 FEATURE_DISABLED", () =>
      Effect.gen(function*() {
        const c = yield* community({ features: { volunteering: false } })
        const anonymous = everyRoute(c.visitor.client, c.organisation.id)
        for (const [route, answer] of Object.entries(everyRoute(c.owner.client, c.organisation.id))) {
          assert.deepStrictEqual(yield* anonymous[route as keyof typeof anonymous], [401, "AUTH_REQUIRED"], route)
          assert.deepStrictEqual(yield* answer, [403, "FEATURE_DISABLED"], route)
        }
      }))

    it.effect("pending and suspended organisations' dashboards stay readable by their owners", () =>
      Effect.gen(function*() {
        for (const status of ["pending", "suspended"] as const) {
          const c = yield* community({ organisation: { status } })
          const opportunity = yield* makeOpportunity(c.organisation)
          const volunteer = yield* makeUser(c.tenant)
          yield* makeApplication(opportunity, volunteer, "approved")
          yield* makeHours(c.organisation, volunteer, 2, "pending")
          for (const [route, answer] of Object.entries(readRoutes(c.owner.client, c.organisation.id))) {
            assert.deepStrictEqual(yield* answer, [200, undefined], `${status} ${route}`)
          }
          const stats = yield* statsOf(c.organisation, c.owner)
          assert.deepInclude(stats, { volunteers: 1, pending_hours: 2, active_opportunities: 1 })
        }
      }))
  })

  describe("stats", () => {
    it.effect("every total counts this organisation's rows only", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const [open1, open2, closed] = [
          yield* makeOpportunity(c.organisation),
          yield* makeOpportunity(c.organisation),
          yield* makeOpportunity(c.organisation, { status: "closed" })
        ]
        const [u1, u2, u3, u4, u5] = [
          yield* makeUser(c.tenant),
          yield* makeUser(c.tenant),
          yield* makeUser(c.tenant),
          yield* makeUser(c.tenant),
          yield* makeUser(c.tenant)
        ]
        // Two approved applications of one member count as one volunteer.
        yield* makeApplication(open1, u1, "approved")
        yield* makeApplication(open2, u1, "approved")
        yield* makeApplication(closed, u2, "approved")
        yield* makeApplication(open1, u3, "pending")
        yield* makeApplication(open2, u4, "pending")
        yield* makeApplication(open1, u5, "declined")
        yield* makeHours(c.organisation, u1, 2.5, "approved")
        yield* makeHours(c.organisation, u1, 1.25, "approved")
        yield* makeHours(c.organisation, u2, 3, "approved")
        yield* makeHours(c.organisation, u1, 1.5, "pending")
        yield* makeHours(c.organisation, u3, 0.75, "pending")
        yield* makeHours(c.organisation, u2, 4, "declined")
        // Another organisation of the same community: none of it counts.
        const other = yield* makeOrganisation(u5)
        const otherOpportunity = yield* makeOpportunity(other)
        yield* makeApplication(otherOpportunity, u4, "approved")
        yield* makeApplication(otherOpportunity, u3, "pending")
        yield* makeHours(other, u4, 5, "approved")
        yield* makeHours(other, u4, 6, "pending")

        const owner = yield* wireClient(c.owner)
        const res = yield* owner.organisationDashboard.stats({ path: { id: c.organisation.id }, withResponse: true })
          .pipe(expectWire(200))
        assert.deepStrictEqual(res.body, {
          data: {
            volunteers: 2,
            pending_applications: 2,
            pending_hours: 2.25,
            approved_hours: 6.75,
            active_opportunities: 2,
            balance: 0,
            auto_pay_enabled: false
          },
          meta: {}
        })
        const otherStats = yield* statsOf(other, yield* actor(u5))
        assert.deepStrictEqual(otherStats, {
          volunteers: 1,
          pending_applications: 1,
          pending_hours: 6,
          approved_hours: 5,
          active_opportunities: 1,
          balance: 0,
          auto_pay_enabled: false
        })
      }))

    it.effect("auto_pay_enabled shows the organisation's flag", () =>
      Effect.gen(function*() {
        const c = yield* community({ organisation: { autoPay: true } })
        assert.strictEqual((yield* statsOf(c.organisation, c.owner)).auto_pay_enabled, true)
      }))
  })

  describe("volunteers", () => {
    it.effect("approved volunteers with their approved hours and application counts, highest user id first", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const [o1, o2, o3] = [
          yield* makeOpportunity(c.organisation),
          yield* makeOpportunity(c.organisation),
          yield* makeOpportunity(c.organisation)
        ]
        const ann = yield* makeUser(c.tenant, { firstName: "Ann", lastName: "A" })
        const bob = yield* makeUser(c.tenant, { firstName: "Bob", lastName: "B" })
        const pendingOnly = yield* makeUser(c.tenant)
        yield* makeApplication(o1, ann, "approved")
        yield* makeApplication(o2, ann, "declined")
        yield* makeApplication(o3, ann, "pending")
        yield* makeApplication(o2, bob, "approved")
        yield* makeApplication(o1, pendingOnly, "pending")
        yield* makeHours(c.organisation, ann, 2, "approved")
        yield* makeHours(c.organisation, ann, 1.5, "approved")
        yield* makeHours(c.organisation, ann, 8, "pending")
        yield* makeHours(c.organisation, bob, 4, "declined")
        // Ann's hours for another organisation do not count here.
        const elsewhere = yield* makeOrganisation(pendingOnly)
        yield* makeHours(elsewhere, ann, 10, "approved")

        const owner = yield* wireClient(c.owner)
        const res = yield* owner.organisationDashboard.volunteers({
          path: { id: c.organisation.id },
          urlParams: {},
          withResponse: true
        }).pipe(expectWire(200))
        assert.deepStrictEqual(res.value.meta, { per_page: 20, has_more: false })
        const items = res.value.data
        assert.deepStrictEqual(items.map((v) => v.user.id), [bob.id, ann.id])
        const [bobItem, annItem] = [items[0]!, items[1]!]
        assert.deepStrictEqual(annItem.user, { id: ann.id, first_name: "Ann", last_name: "A", avatar_url: null })
        assert.deepInclude(annItem, { total_hours: 3.5, application_count: 3 })
        assert.deepInclude(bobItem, { total_hours: 0, application_count: 1 })
        // On the wire, an ISO instant in UTC.
        const annOnWire = dataOf<Array<{ first_approved_at: string }>>(res.body)[1]!
        assert.match(annOnWire.first_approved_at, /^\d{4}-\d\d-\d\dT.*Z$/)
      }))

    it.effect("cursor paging walks every volunteer once; a bad cursor or per_page is 422", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const opportunity = yield* makeOpportunity(c.organisation)
        const ids: Array<number> = []
        for (let i = 0; i < 5; i++) {
          const user = yield* makeUser(c.tenant)
          yield* makeApplication(opportunity, user, "approved")
          ids.push(user.id)
        }
        const volunteers = (urlParams: PageParams) =>
          c.owner.client.organisationDashboard.volunteers({ path: { id: c.organisation.id }, urlParams })
        const pages = yield* walk(volunteers, 2)
        assert.deepStrictEqual(pages.map((p) => p.length), [2, 2, 1])
        assert.deepStrictEqual(pages.flat().map((v) => v.user.id), [...ids].sort((x, y) => y - x))
        const exact = yield* walk(volunteers, 5)
        assert.deepStrictEqual(exact.map((p) => p.length), [5])

        // Raw: a cursor and page sizes the typed client would not send.
        const path = `${ORGANISATIONS}/${c.organisation.id}/volunteers`
        const badCursor = yield* get(`${path}?cursor=nope!`, c.owner.headers)
        assert.deepStrictEqual([badCursor.status, codeOf(badCursor.body), fieldOf(badCursor.body)], [
          422,
          "VALIDATION_ERROR",
          "cursor"
        ])
        for (const perPage of ["0", "101", "x"]) {
          const res = yield* get(`${path}?per_page=${perPage}`, c.owner.headers)
          assert.deepStrictEqual([res.status, fieldOf(res.body)], [422, "per_page"], perPage)
        }
      }))
  })

  describe("applications", () => {
    it.effect("applications to the organisation, newest first, with member and opportunity", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const opportunity = yield* makeOpportunity(c.organisation, { title: "Food bank shift" })
        const mia = yield* makeUser(c.tenant, { firstName: "Mia", lastName: "M" })
        const application = yield* makeApplication(opportunity, mia, "pending")
        const other = yield* makeOrganisation(mia)
        yield* makeApplication(yield* makeOpportunity(other), c.owner, "pending")

        const owner = yield* wireClient(c.owner)
        const res = yield* owner.organisationDashboard.applications({
          path: { id: c.organisation.id },
          urlParams: {},
          withResponse: true
        }).pipe(expectWire(200))
        assert.deepStrictEqual(res.value.meta, { per_page: 20, has_more: false })
        // On the wire: exactly these fields.
        const items = dataOf<Array<Record<string, unknown>>>(res.body)
        assert.strictEqual(items.length, 1)
        assert.deepStrictEqual(Object.keys(items[0]!).sort(), [
          "created_at",
          "id",
          "message",
          "opportunity",
          "organisation_id",
          "reviewed_at",
          "status",
          "user"
        ])
        assert.deepInclude(items[0]!, {
          id: application.id,
          opportunity: { id: opportunity.id, title: "Food bank shift" },
          organisation_id: c.organisation.id,
          user: { id: mia.id, first_name: "Mia", last_name: "M", avatar_url: null },
          message: null,
          status: "pending",
          reviewed_at: null
        })
        assert.match(items[0]!.created_at as string, /Z$/)
      }))

    it.effect("cursor paging to the end, with and without a status filter; an unknown status is 422", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const opportunities = [yield* makeOpportunity(c.organisation), yield* makeOpportunity(c.organisation)]
        const created: Array<{ id: number; status: string }> = []
        const statuses = ["pending", "approved", "declined", "pending", "pending", "approved", "pending"] as const
        for (const [i, status] of statuses.entries()) {
          const user = yield* makeUser(c.tenant)
          const application = yield* makeApplication(opportunities[i % 2]!, user, status)
          created.push({ id: application.id, status })
        }
        const applications = (filter: { readonly status?: "pending" | "approved" }) => (urlParams: PageParams) =>
          c.owner.client.organisationDashboard.applications({
            path: { id: c.organisation.id },
            urlParams: { ...urlParams, ...filter }
          })
        const all = yield* walk(applications({}), 3)
        assert.deepStrictEqual(all.map((p) => p.length), [3, 3, 1])
        assert.deepStrictEqual(all.flat().map((a) => a.id), created.map((a) => a.id).reverse())

        const pending = yield* walk(applications({ status: "pending" }), 2)
        assert.deepStrictEqual(pending.map((p) => p.length), [2, 2])
        assert.deepStrictEqual(
          pending.flat().map((a) => a.id),
          created.filter((a) => a.status === "pending").map((a) => a.id).reverse()
        )
        const approved = yield* walk(applications({ status: "approved" }), 20)
        assert.deepStrictEqual(approved.flat().map((a) => a.status), ["approved", "approved"])

        // Raw: a status the typed client would not send.
        const bad = yield* get(`${ORGANISATIONS}/${c.organisation.id}/applications?status=maybe`, c.owner.headers)
        assert.deepStrictEqual([bad.status, codeOf(bad.body), fieldOf(bad.body)], [422, "VALIDATION_ERROR", "status"])
      }))
  })

  describe("pending hours", () => {
    it.effect("hours awaiting review, newest first, with the unpaid payment block; paging to the end", () =>
      Effect.gen(function*() {
        const c = yield* community()
        const volunteer = yield* makeUser(c.tenant, { firstName: "Val", lastName: "V" })
        const pendingIds: Array<number> = []
        for (const hours of [1, 1.5, 2, 0.25, 3]) {
          pendingIds.push((yield* makeHours(c.organisation, volunteer, hours, "pending")).id)
          yield* makeHours(c.organisation, volunteer, 1, "approved")
        }
        yield* makeHours(c.organisation, volunteer, 1, "declined")
        const elsewhere = yield* makeOrganisation(volunteer)
        yield* makeHours(elsewhere, c.owner, 2, "pending")

        const pendingHours = (urlParams: PageParams) =>
          c.owner.client.organisationDashboard.pendingHours({ path: { id: c.organisation.id }, urlParams })
        const first = yield* pendingHours({})
        includes(first.data[0], {
          id: pendingIds[4],
          organisation: { id: c.organisation.id, name: c.organisation.name },
          opportunity: null,
          user: { id: volunteer.id, first_name: "Val", last_name: "V", avatar_url: null },
          date: "2026-11-01",
          hours: 3,
          description: "Sorting donations",
          status: "pending",
          reviewed_at: null,
          payment: { status: "none", transaction_id: null, amount: null }
        })

        const pages = yield* walk(pendingHours, 2)
        assert.deepStrictEqual(pages.map((p) => p.length), [2, 2, 1])
        assert.deepStrictEqual(pages.flat().map((h) => h.id), [...pendingIds].reverse())
        assert.isTrue(pages.flat().every((h) => h.status === "pending"))
      }))

    it.effect("an hour log's payment block follows its row", () =>
      Effect.sync(() => {
        assert.deepStrictEqual(hourPayment({ hours: 2.5, payment_status: "paid", transaction_id: 41 }), {
          status: "paid",
          transaction_id: 41,
          amount: 2.5
        })
        assert.deepStrictEqual(
          hourPayment({ hours: 2.5, payment_status: "insufficient_balance", transaction_id: null }),
          { status: "insufficient_balance", transaction_id: null, amount: null }
        )
        assert.strictEqual(isoDate(new Date(2026, 0, 9)), "2026-01-09")
        assert.strictEqual(isoDate("2026-01-09"), "2026-01-09")
      }))
  })

  describe("privacy", () => {
    it.effect("balance and auto_pay_enabled never appear in the public directory or detail", () =>
      Effect.gen(function*() {
        const c = yield* community({ organisation: { autoPay: true } })
        // On the wire: the text of each answer.
        const visitor = yield* wireClient(c.visitor, { ownIp: true })
        const owner = yield* wireClient(c.owner, { ownIp: true })
        const detail = yield* visitor.organisations.get({ path: { id: c.organisation.id }, withResponse: true }).pipe(
          expectWire(200)
        )
        const directory = yield* visitor.organisations.directory({ urlParams: {}, withResponse: true }).pipe(
          expectWire(200)
        )
        const ownerDetail = yield* owner.organisations.get({ path: { id: c.organisation.id }, withResponse: true })
          .pipe(expectWire(200))
        for (const text of [detail.text, directory.text, ownerDetail.text]) {
          assert.notInclude(text, "balance")
          assert.notInclude(text, "auto_pay")
          assert.notInclude(text, "tenant_id")
        }
        assert.include(directory.text, c.organisation.name)
      }))
  })
})
