import { assert, describe, layer } from "@effect/vitest"
import type { HourLogId, Notification } from "@timebank/domain"
import { Effect } from "effect"
import { expectOk, ownAddressClient } from "../fixtures/client.js"
import { type Actor, community, makeActor } from "../fixtures/community.js"
import { dispatchSettled, queuedMails } from "../fixtures/notifications.js"
import { TestApp } from "../fixtures/TestApp.js"
import {
  makeApplication,
  makeMembership,
  makeOpportunity,
  staffedCommunity,
  type TestOrganisation
} from "../fixtures/volunteering.js"

/** The types of decisions D12's rows these tests cover. */
const TYPES = [
  "listing_created",
  "vol_opportunity_created",
  "vol_application_approved",
  "vol_application_declined",
  "vol_hours_approved",
  "review_received"
] as const
type Type = typeof TYPES[number]

/** Signed in by token; the community default frequency named (it is also the tenant default), for the contrast. */
const daily = { signIn: "token", settings: { "notifications.default_frequency": "daily" } } as const

/** `who`'s bells of `type` linking to `link`, once the dispatch handled every outbox event written so far. */
const bellsAt = (who: Actor, type: Type, link: string) =>
  Effect.zipRight(
    dispatchSettled,
    Effect.map(
      Effect.orDie(who.client.notifications.list({ urlParams: { per_page: 100 } })),
      (page) => page.data.filter((b) => b.type === type && b.link === link)
    )
  )

/** `who`'s queued e-mails of `type` as `[subject, frequency]`, after the dispatch. */
const mailsOf = (who: { readonly id: number }, type: Type) =>
  Effect.zipRight(
    dispatchSettled,
    Effect.map(queuedMails(who), (rows) =>
      rows.filter((m) => m.activity_type === type).map((m) => [m.subject, m.frequency] as const))
  )

interface Expected {
  readonly category: Notification["category"]
  readonly title: string
  readonly body: string
  readonly actor: Actor
}

/** `who` has exactly one bell of `type` at `link`, as expected; answers it. */
const expectBell = (who: Actor, type: Type, link: string, expected: Expected) =>
  Effect.map(bellsAt(who, type, link), (bells): Notification => {
    assert.strictEqual(bells.length, 1, `${type} for user ${who.id}: ${JSON.stringify(bells.map((b) => b.title))}`)
    const bell = bells[0]!
    assert.deepInclude(bell, { type, category: expected.category, title: expected.title, body: expected.body, link })
    assert.strictEqual(bell.actor?.id, expected.actor.id, "actor")
    return bell
  })

/** None of `who` has a bell of `type` at `link` (after the dispatch caught up). */
const expectNoBells = (who: ReadonlyArray<Actor>, type: Type, link: string) =>
  Effect.forEach(
    who,
    (one) =>
      Effect.map(bellsAt(one, type, link), (bells) =>
        assert.deepStrictEqual(bells.map((b) => b.title), [], `${type} for user ${one.id}`)),
    { discard: true }
  )

const listingLink = (id: number) => `/listings/${id}`
const opportunityLink = (id: number) => `/volunteering/opportunities/${id}`
const organisationLink = (organisation: TestOrganisation) => `/volunteering/organisations/${organisation.id}`

/** `who` posts a listing over HTTP (from an address of its own: listing creation is limited per IP). */
const postListing = (who: Actor, title: string) =>
  Effect.flatMap(
    ownAddressClient(who),
    (client) => client.listings.create({ payload: { type: "offer", title, description: "Happy to help on weekends" } })
  ).pipe(
    expectOk,
    Effect.map((res) => res.data.id)
  )

const postOpportunity = (who: Actor, organisation: TestOrganisation, title: string) =>
  who.client.opportunities.create({
    path: { id: organisation.id },
    payload: { title, description: "Help us sort food donations on Saturday mornings." }
  }).pipe(expectOk, Effect.map((res) => res.data.id))

const yesterday = () => new Date(Date.now() - 86_400_000).toISOString().slice(0, 10)

const logHours = (who: Actor, organisation: TestOrganisation, hours: number) =>
  who.client.hours.log({
    payload: { organisation_id: organisation.id, date: yesterday(), hours, description: "Sorted tins" }
  }).pipe(expectOk, Effect.map((res) => res.data.id))

const reviewHours = (who: Actor, id: HourLogId, status: "approved" | "declined") =>
  who.client.hours.review({ path: { id }, payload: { status } }).pipe(expectOk)

layer(TestApp(), { excludeTestServices: true, timeout: "180 seconds" })("community notifications", (it) => {
  describe("admin fan-out", () => {
    it.effect("listing_created rings every admin, broker and coordinator; not plain members, not the creator", () =>
      Effect.gen(function*() {
        const c = yield* community(daily)
        const broker = yield* makeActor(c.tenant, { role: "broker" }, "token")
        const coordinator = yield* makeActor(
          c.tenant,
          { role: "coordinator", firstName: "Cora", lastName: "Coord" },
          "token"
        )

        const byMember = listingLink(yield* postListing(c.member, "Garden help"))
        for (const staff of [c.admin, broker, coordinator]) {
          yield* expectBell(staff, "listing_created", byMember, {
            category: "listings",
            title: "New listing: Garden help",
            body: "Mia Member posted “Garden help”.",
            actor: c.member
          })
        }
        yield* expectNoBells([c.member, c.other], "listing_created", byMember)
        // Not an always-instant type: the community default applies.
        assert.deepStrictEqual(yield* mailsOf(c.admin, "listing_created"), [["New listing: Garden help", "daily"]])

        const byCoordinator = listingLink(yield* postListing(coordinator, "Bike repair"))
        for (const staff of [c.admin, broker]) {
          yield* expectBell(staff, "listing_created", byCoordinator, {
            category: "listings",
            title: "New listing: Bike repair",
            body: "Cora Coord posted “Bike repair”.",
            actor: coordinator
          })
        }
        yield* expectNoBells([coordinator, c.member, c.other], "listing_created", byCoordinator)
        // Only the member's listing is mailed to the coordinator, not their own.
        assert.deepStrictEqual(yield* mailsOf(coordinator, "listing_created"), [["New listing: Garden help", "daily"]])
      }))

    it.effect("vol_opportunity_created rings the admin fan-out naming the organisation; not the creator", () =>
      Effect.gen(function*() {
        const c = yield* staffedCommunity(daily)
        const coordinator = yield* makeActor(
          c.tenant,
          { role: "coordinator", firstName: "Cora", lastName: "Coord" },
          "token"
        )
        // The coordinator also runs the organisation, so that staff can be the creator.
        yield* makeMembership(c.organisation, coordinator, "admin")
        const expected = (title: string, actor: Actor): Expected => ({
          category: "jobs",
          title: `New volunteering opportunity: ${title}`,
          body: `${c.organisation.name} is looking for volunteers.`,
          actor
        })

        const byOwner = opportunityLink(yield* postOpportunity(c.owner, c.organisation, "Sort donations"))
        for (const staff of [c.admin, coordinator]) {
          yield* expectBell(staff, "vol_opportunity_created", byOwner, expected("Sort donations", c.owner))
        }
        yield* expectNoBells([c.owner, c.orgAdmin, c.plain, c.member], "vol_opportunity_created", byOwner)

        const byCoordinator = opportunityLink(yield* postOpportunity(coordinator, c.organisation, "Drive the van"))
        yield* expectBell(c.admin, "vol_opportunity_created", byCoordinator, expected("Drive the van", coordinator))
        yield* expectNoBells([coordinator, c.owner, c.member], "vol_opportunity_created", byCoordinator)
        assert.deepStrictEqual(yield* mailsOf(coordinator, "vol_opportunity_created"), [[
          "New volunteering opportunity: Sort donations",
          "daily"
        ]])
      }))
  })

  describe("volunteering decisions", () => {
    it.effect("an approved or declined application rings the applicant only, mailed at once", () =>
      Effect.gen(function*() {
        const c = yield* staffedCommunity(daily)
        // Straight to the database: its creation must not ring anyone.
        const opportunity = yield* makeOpportunity(c.organisation, { title: "Food sorting" })
        const link = opportunityLink(opportunity.id)
        const apply = (who: Actor) =>
          who.client.opportunities.apply({ path: { id: opportunity.id }, payload: {} }).pipe(
            expectOk,
            Effect.map((res) => res.data.id)
          )
        const [approved, declined] = [yield* apply(c.member), yield* apply(c.other)]
        yield* c.orgAdmin.client.applications.review({ path: { id: approved }, payload: { status: "approved" } }).pipe(
          expectOk
        )
        yield* c.owner.client.applications.review({ path: { id: declined }, payload: { status: "declined" } }).pipe(
          expectOk
        )

        yield* expectBell(c.member, "vol_application_approved", link, {
          category: "jobs",
          title: "Your application was approved: Food sorting",
          body: `${c.organisation.name} approved your application.`,
          actor: c.orgAdmin
        })
        yield* expectBell(c.other, "vol_application_declined", link, {
          category: "jobs",
          title: "Your application was declined: Food sorting",
          body: `${c.organisation.name} declined your application.`,
          actor: c.owner
        })
        const bystanders = [c.admin, c.owner, c.orgAdmin, c.plain]
        yield* expectNoBells([...bystanders, c.other], "vol_application_approved", link)
        yield* expectNoBells([...bystanders, c.member], "vol_application_declined", link)
        // Always instant, though the community default is daily.
        assert.deepStrictEqual(yield* mailsOf(c.member, "vol_application_approved"), [[
          "Your application was approved: Food sorting",
          "instant"
        ]])
        assert.deepStrictEqual(yield* mailsOf(c.other, "vol_application_declined"), [[
          "Your application was declined: Food sorting",
          "instant"
        ]])
      }))

    it.effect("approved hours ring the volunteer (1 hour, 3 hours), mailed at once; declined hours nothing", () =>
      Effect.gen(function*() {
        const c = yield* staffedCommunity(daily)
        const link = organisationLink(c.organisation)
        const opportunity = yield* makeOpportunity(c.organisation)
        yield* makeApplication(opportunity, c.member, "approved")
        yield* makeApplication(opportunity, c.other, "approved")

        // Declined first: a wrong bell must not hide behind the 60-second dedupe of the approval's.
        yield* reviewHours(c.orgAdmin, yield* logHours(c.member, c.organisation, 2), "declined")
        yield* expectNoBells([c.member, c.orgAdmin, c.owner, c.admin], "vol_hours_approved", link)
        assert.deepStrictEqual(yield* mailsOf(c.member, "vol_hours_approved"), [])

        yield* reviewHours(c.orgAdmin, yield* logHours(c.member, c.organisation, 1), "approved")
        yield* reviewHours(c.owner, yield* logHours(c.other, c.organisation, 3), "approved")
        const body = `${c.organisation.name} approved your volunteering hours.`
        yield* expectBell(c.member, "vol_hours_approved", link, {
          category: "jobs",
          title: "1 hour approved",
          body,
          actor: c.orgAdmin
        })
        yield* expectBell(c.other, "vol_hours_approved", link, {
          category: "jobs",
          title: "3 hours approved",
          body,
          actor: c.owner
        })
        yield* expectNoBells([c.admin, c.owner, c.orgAdmin, c.plain], "vol_hours_approved", link)
        assert.deepStrictEqual(yield* mailsOf(c.member, "vol_hours_approved"), [["1 hour approved", "instant"]])
        assert.deepStrictEqual(yield* mailsOf(c.other, "vol_hours_approved"), [["3 hours approved", "instant"]])
      }))
  })

  describe("reviews", () => {
    it.effect("a review of a member rings that member; with email_reviews off, the bell comes without an e-mail", () =>
      Effect.gen(function*() {
        const c = yield* community(daily)
        const review = (by: Actor, of: Actor, rating: number) =>
          by.client.reviews.create({ payload: { target_type: "user", target_id: of.id, rating, comment: "" } }).pipe(
            expectOk
          )
        const updated = yield* c.member.client.users.updateNotifications({ payload: { email_reviews: false } })
        assert.isFalse(updated.data.email_reviews)

        yield* review(c.member, c.other, 4)
        yield* review(c.other, c.member, 1)
        yield* expectBell(c.other, "review_received", `/members/${c.other.id}`, {
          category: "reviews",
          title: "Mia Member reviewed Otto Other",
          body: "4 stars",
          actor: c.member
        })
        yield* expectBell(c.member, "review_received", `/members/${c.member.id}`, {
          category: "reviews",
          title: "Otto Other reviewed Mia Member",
          body: "1 star",
          actor: c.other
        })
        yield* expectNoBells([c.member, c.admin], "review_received", `/members/${c.other.id}`)
        yield* expectNoBells([c.other, c.admin], "review_received", `/members/${c.member.id}`)
        assert.deepStrictEqual(yield* mailsOf(c.other, "review_received"), [[
          "Mia Member reviewed Otto Other",
          "daily"
        ]])
        assert.deepStrictEqual(yield* mailsOf(c.member, "review_received"), [])
      }))

    it.effect("a review of an organisation rings its creator and active owners; not the reviewer, not admins", () =>
      Effect.gen(function*() {
        const c = yield* staffedCommunity(daily)
        const [coOwner, pendingOwner] = yield* Effect.all([
          makeActor(c.tenant, { firstName: "Cole", lastName: "Owner" }, "token"),
          makeActor(c.tenant, { firstName: "Pam", lastName: "Pending" }, "token")
        ])
        yield* makeMembership(c.organisation, coOwner, "owner")
        yield* makeMembership(c.organisation, pendingOwner, "owner", "pending")
        // The reviewer helps run it too: still not told of their own review.
        yield* makeMembership(c.organisation, c.other, "owner")
        const link = organisationLink(c.organisation)

        yield* c.other.client.reviews.create({
          payload: { target_type: "organization", target_id: c.organisation.id, rating: 5, comment: "Lovely" }
        }).pipe(expectOk)
        for (const owner of [c.owner, coOwner]) {
          yield* expectBell(owner, "review_received", link, {
            category: "reviews",
            title: `Otto Other reviewed ${c.organisation.name}`,
            body: "5 stars",
            actor: c.other
          })
          assert.strictEqual((yield* mailsOf(owner, "review_received")).length, 1)
        }
        yield* expectNoBells([c.other, c.admin, c.orgAdmin, c.plain, pendingOwner, c.member], "review_received", link)
      }))
  })

  describe("tenancy", () => {
    it.effect("staff of another community never hear of these", () =>
      Effect.gen(function*() {
        const elsewhere = yield* community({ signIn: "token" })
        const elsewhereCoordinator = yield* makeActor(elsewhere.tenant, { role: "coordinator" }, "token")
        const c = yield* staffedCommunity(daily)
        const opportunity = yield* makeOpportunity(c.organisation)
        yield* makeApplication(opportunity, c.member, "approved")

        const listing = listingLink(yield* postListing(c.member, "Dog walking"))
        const created = opportunityLink(yield* postOpportunity(c.owner, c.organisation, "Paint the fence"))
        const application = yield* c.other.client.opportunities.apply({ path: { id: opportunity.id }, payload: {} })
          .pipe(expectOk)
        yield* c.owner.client.applications.review({
          path: { id: application.data.id },
          payload: { status: "approved" }
        }).pipe(expectOk)
        yield* reviewHours(c.owner, yield* logHours(c.member, c.organisation, 2), "approved")
        yield* c.member.client.reviews.create({
          payload: { target_type: "organization", target_id: c.organisation.id, rating: 4, comment: "" }
        }).pipe(expectOk)

        // Each was delivered in its own community…
        assert.strictEqual((yield* bellsAt(c.admin, "listing_created", listing)).length, 1)
        assert.strictEqual((yield* bellsAt(c.admin, "vol_opportunity_created", created)).length, 1)
        assert.strictEqual(
          (yield* bellsAt(c.other, "vol_application_approved", opportunityLink(opportunity.id))).length,
          1
        )
        assert.strictEqual((yield* bellsAt(c.member, "vol_hours_approved", organisationLink(c.organisation))).length, 1)
        assert.strictEqual((yield* bellsAt(c.owner, "review_received", organisationLink(c.organisation))).length, 1)
        // …and the other community's inboxes (set up without events) stay empty.
        for (const who of [elsewhere.admin, elsewhereCoordinator, elsewhere.member]) {
          const inbox = yield* who.client.notifications.list({ urlParams: { per_page: 100 } })
          assert.deepStrictEqual(inbox.data.map((b) => [b.type, b.title]), [], `user ${who.id}`)
          assert.deepStrictEqual(
            (yield* queuedMails(who)).filter((m) => (TYPES as ReadonlyArray<string>).includes(m.activity_type)),
            []
          )
        }
      }))
  })
})
