import type { HttpClient, HttpClientResponse } from "@effect/platform"
import { assert, layer } from "@effect/vitest"
import type { Feature } from "@timebank/domain"
import { Effect } from "effect"
import { codeOf } from "./fixtures/bodies.js"
import { apiClient, expectStatus, failureOf } from "./fixtures/client.js"
import { community } from "./fixtures/community.js"
import { hoursFromNow, makeEvent, makePoll } from "./fixtures/events.js"
import { makeGroup } from "./fixtures/feed.js"
import { groupId } from "./fixtures/groups.js"
import { fromIp, randomIp } from "./fixtures/servers.js"
import { rawRequest, TestApp } from "./fixtures/TestApp.js"
import { makeOrganisation } from "./fixtures/volunteering.js"

/**
 * The feature switches are middleware of the contract's groups (`FeatureGate` in the domain): every route of a
 * gated group answers 403 `FEATURE_DISABLED` while its feature is off, after the tenant and the caller are known.
 */

const GATED: ReadonlyArray<Feature> = [
  "listings",
  "volunteering",
  "events",
  "polls",
  "messages",
  "connections",
  "groups",
  "feed"
]
const allOff = Object.fromEntries(GATED.map((feature) => [feature, false]))

/**
 * A community with an organisation of the admin, an event the admin organises, a poll of the member and a group the
 * admin owns (written directly: its feature may be off).
 */
const gatedCommunity = (features: Record<string, boolean> = {}) =>
  Effect.gen(function*() {
    const c = yield* community({ features, signIn: "token" })
    return {
      ...c,
      organisation: yield* makeOrganisation(c.admin),
      event: yield* makeEvent(c.admin),
      poll: yield* makePoll(c.member),
      group: yield* makeGroup(c.admin)
    }
  })
type GatedCommunity = Effect.Effect.Success<ReturnType<typeof gatedCommunity>>

/** A typed client with the caller's headers, sending from an address of its own (several routes are rate limited). */
const clientOf = (who: { readonly headers: Record<string, string> }) =>
  apiClient({ ...fromIp(randomIp()), ...who.headers })
type Client = Effect.Effect.Success<ReturnType<typeof clientOf>>

interface Outcome {
  readonly status: number
  readonly code?: string
}

/** The status of a typed call made `withResponse`, and the code of a domain error. */
const outcomeOf = <A, E, R>(call: Effect.Effect<readonly [A, HttpClientResponse.HttpClientResponse], E, R>) =>
  Effect.matchEffect(call, {
    onSuccess: ([, response]): Effect.Effect<Outcome> => Effect.succeed({ status: response.status }),
    onFailure: (error) =>
      Effect.map(failureOf(Effect.fail(error)), (f): Outcome => ({ status: f.status, code: f.code }))
  })

interface Probe {
  readonly group: string
  readonly feature: Feature
  /** The status the route answers while its feature is on. */
  readonly on: number
  readonly call: (c: GatedCommunity) => Effect.Effect<Outcome, never, HttpClient.HttpClient>
}

const typed = (
  who: (c: GatedCommunity) => { readonly headers: Record<string, string> },
  call: (
    client: Client,
    c: GatedCommunity
  ) => Effect.Effect<readonly [unknown, HttpClientResponse.HttpClientResponse], unknown>
) =>
(c: GatedCommunity) => Effect.flatMap(clientOf(who(c)), (client) => outcomeOf(call(client, c)))

const raw = (path: (c: GatedCommunity) => string) => (c: GatedCommunity) =>
  Effect.map(
    rawRequest("GET", path(c), { headers: c.anonymous }),
    (res): Outcome => res.status < 400 ? { status: res.status } : { status: res.status, code: codeOf(res.body) }
  )

/** The outcome of a probe; a defect (a 500, a response the contract does not fit) names the probe's group. */
const run = (probe: Probe, c: GatedCommunity) =>
  Effect.catchAllDefect(probe.call(c), (defect) => Effect.die(new Error(`${probe.group}: ${String(defect)}`)))

/** One route of every gated group, as its feature switch gates it. */
const PROBES: ReadonlyArray<Probe> = [
  {
    group: "listings",
    feature: "listings",
    on: 200,
    call: typed((c) => c.visitor, (client) => client.listings.list({ urlParams: {}, withResponse: true }))
  },
  {
    group: "organisations",
    feature: "volunteering",
    on: 200,
    call: typed((c) => c.visitor, (client) => client.organisations.directory({ urlParams: {}, withResponse: true }))
  },
  {
    group: "opportunities",
    feature: "volunteering",
    on: 200,
    call: typed((c) => c.visitor, (client) => client.opportunities.list({ urlParams: {}, withResponse: true }))
  },
  {
    group: "applications",
    feature: "volunteering",
    on: 200,
    call: typed((c) => c.member, (client) => client.applications.mine({ urlParams: {}, withResponse: true }))
  },
  {
    group: "hours",
    feature: "volunteering",
    on: 200,
    call: typed((c) => c.member, (client) => client.hours.mine({ urlParams: {}, withResponse: true }))
  },
  {
    group: "reviews",
    feature: "volunteering",
    on: 200,
    call: typed(
      (c) => c.visitor,
      (client, c) => client.reviews.list({ path: { type: "user", id: c.member.id }, urlParams: {}, withResponse: true })
    )
  },
  {
    group: "organisationDashboard",
    feature: "volunteering",
    on: 200,
    call: typed(
      (c) => c.admin,
      (client, c) => client.organisationDashboard.stats({ path: { id: c.organisation.id }, withResponse: true })
    )
  },
  {
    group: "adminOrganisations",
    feature: "volunteering",
    on: 200,
    call: typed((c) => c.admin, (client) => client.adminOrganisations.list({ urlParams: {}, withResponse: true }))
  },
  {
    group: "events",
    feature: "events",
    on: 200,
    call: typed((c) => c.visitor, (client) => client.events.list({ urlParams: {}, withResponse: true }))
  },
  {
    group: "eventRsvp",
    feature: "events",
    on: 200,
    call: typed(
      (c) => c.admin,
      (client, c) => client.eventRsvp.attendees({ path: { id: c.event.id }, withResponse: true })
    )
  },
  {
    group: "eventReminders",
    feature: "events",
    on: 200,
    call: typed(
      (c) => c.admin,
      (client, c) => client.eventReminders.list({ path: { id: c.event.id }, withResponse: true })
    )
  },
  {
    group: "eventSeries",
    feature: "events",
    on: 201,
    call: typed(
      (c) => c.member,
      (client) => client.eventSeries.create({ payload: { title: "Walks" }, withResponse: true })
    )
  },
  {
    group: "recurringEvents",
    feature: "events",
    on: 201,
    call: typed((c) => c.member, (client) =>
      client.recurringEvents.create({
        payload: {
          title: "Weekly walk",
          description: "Round the park",
          start_time: hoursFromNow(48),
          recurrence_frequency: "daily",
          recurrence_ends_after_count: 2
        },
        withResponse: true
      }))
  },
  {
    group: "eventImages",
    feature: "events",
    // A form without an image: past the gate, the route itself refuses it.
    on: 422,
    call: typed(
      (c) => c.admin,
      (client, c) =>
        client.eventImages.upload({ path: { id: c.event.id }, payload: new FormData(), withResponse: true })
    )
  },
  { group: "eventCalendar", feature: "events", on: 200, call: raw(() => "/api/v2/events.ics") },
  {
    group: "adminEvents",
    feature: "events",
    on: 200,
    call: typed((c) => c.admin, (client) => client.adminEvents.list({ urlParams: {}, withResponse: true }))
  },
  {
    group: "polls",
    feature: "polls",
    on: 200,
    call: typed((c) => c.member, (client, c) => client.polls.get({ path: { id: c.poll.id }, withResponse: true }))
  },
  {
    group: "messages",
    feature: "messages",
    on: 200,
    call: typed((c) => c.member, (client) => client.messages.conversations({ urlParams: {}, withResponse: true }))
  },
  {
    group: "connections",
    feature: "connections",
    on: 200,
    call: typed((c) => c.member, (client) => client.connections.list({ urlParams: {}, withResponse: true }))
  },
  {
    group: "groups",
    feature: "groups",
    on: 200,
    call: typed((c) => c.member, (client) => client.groups.list({ urlParams: {}, withResponse: true }))
  },
  {
    group: "groupMembers",
    feature: "groups",
    on: 200,
    call: typed(
      (c) => c.admin,
      (client, c) => client.groupMembers.list({ path: { id: groupId(c.group.id) }, urlParams: {}, withResponse: true })
    )
  },
  {
    group: "groupChat",
    feature: "groups",
    on: 200,
    call: typed(
      (c) => c.admin,
      (client, c) => client.groupChat.list({ path: { id: groupId(c.group.id) }, urlParams: {}, withResponse: true })
    )
  },
  {
    group: "feed",
    feature: "feed",
    on: 200,
    call: typed((c) => c.member, (client) => client.feed.list({ urlParams: {}, withResponse: true }))
  }
]

layer(TestApp(), { excludeTestServices: true, timeout: "120 seconds" })("feature gate", (it) => {
  it.effect("one route of every gated group is served while every feature is on", () =>
    Effect.gen(function*() {
      const on = yield* gatedCommunity()
      for (const probe of PROBES) {
        const outcome = yield* run(probe, on)
        assert.strictEqual(outcome.status, probe.on, `${probe.group}: ${outcome.code}`)
      }
    }))

  for (const feature of GATED) {
    it.effect(`with ${feature} off, its groups answer 403 FEATURE_DISABLED and the other groups are served`, () =>
      Effect.gen(function*() {
        const off = yield* gatedCommunity({ [feature]: false })
        for (const probe of PROBES) {
          const outcome = yield* run(probe, off)
          if (probe.feature === feature) {
            assert.deepStrictEqual(outcome, { status: 403, code: "FEATURE_DISABLED" }, probe.group)
          } else {
            assert.strictEqual(outcome.status, probe.on, `${probe.group}: ${outcome.code}`)
          }
        }
      }))
  }

  it.effect("routes outside the gated groups stay open with every gated feature off", () =>
    Effect.gen(function*() {
      const c = yield* community({ features: allOff })
      yield* c.visitor.client.tenancy.current({ withResponse: true }).pipe(expectStatus(200))
      yield* c.visitor.client.categories.list({ urlParams: {}, withResponse: true }).pipe(expectStatus(200))
      // Listing moderation is not gated: admins still review and clean up while members cannot use listings.
      yield* c.admin.client.adminListings.list({ urlParams: {}, withResponse: true }).pipe(expectStatus(200))
      yield* c.member.client.wallet.get({ withResponse: true }).pipe(expectStatus(200))
    }))

  it.effect("the tenant and the caller are checked before the feature switch", () =>
    Effect.gen(function*() {
      const c = yield* community({ features: allOff })
      const noTenant = yield* rawRequest("GET", "/api/v2/listings")
      assert.deepStrictEqual([noTenant.status, codeOf(noTenant.body)], [400, "tenant_required"])
      const noToken = yield* rawRequest("GET", "/api/v2/volunteering/my-hours", { headers: c.anonymous })
      assert.deepStrictEqual([noToken.status, codeOf(noToken.body)], [401, "AUTH_REQUIRED"])
      const foreignToken = yield* rawRequest("GET", "/api/v2/events", {
        headers: { ...c.anonymous, authorization: "Bearer not-a-token" }
      })
      assert.deepStrictEqual([foreignToken.status, codeOf(foreignToken.body)], [401, "AUTH_REQUIRED"])
    }))

  it.effect("the switch is checked before the request is decoded: a bad body of a switched-off route is 403", () =>
    Effect.gen(function*() {
      const c = yield* community({ features: allOff })
      const res = yield* rawRequest("POST", "/api/v2/events/series", {
        headers: c.member.headers,
        body: JSON.stringify({ title: "" })
      })
      assert.deepStrictEqual([res.status, codeOf(res.body)], [403, "FEATURE_DISABLED"])
    }))
})
