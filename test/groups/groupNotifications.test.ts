import { assert, describe, layer } from "@effect/vitest"
import type { Notification, Tenant } from "@timebank/domain"
import { Effect } from "effect"
import { expectOk } from "../fixtures/client.js"
import { type Actor, community, makeActor } from "../fixtures/community.js"
import { insertMember, join, makeGroup, setMember } from "../fixtures/groups.js"
import { dispatchSettled } from "../fixtures/notifications.js"
import { TestApp } from "../fixtures/TestApp.js"

type GroupType = "group_created" | "group_member_joined" | "group_message"

/** `who`'s bells of `type` linking to the group, once the dispatch handled every outbox event written so far. */
const bellsAt = (who: Actor, type: GroupType, group: { readonly id: number }) =>
  Effect.zipRight(
    dispatchSettled,
    Effect.map(
      Effect.orDie(who.client.notifications.list({ urlParams: { per_page: 100 } })),
      (page) => page.data.filter((b) => b.type === type && b.link === `/groups/${group.id}`)
    )
  )

/** `who` has exactly one such bell, with these texts and actor; answers it. */
const expectBell = (
  who: Actor,
  type: GroupType,
  group: { readonly id: number },
  expected: { readonly title: string; readonly body: string; readonly actor: Actor }
) =>
  Effect.map(bellsAt(who, type, group), (bells): Notification => {
    assert.strictEqual(bells.length, 1, `${type} for user ${who.id}: ${JSON.stringify(bells.map((b) => b.title))}`)
    const bell = bells[0]!
    assert.deepInclude(bell, { type, category: "groups", title: expected.title, body: expected.body })
    assert.strictEqual(bell.actor?.id, expected.actor.id, "actor")
    return bell
  })

/** None of `who` has a bell of `type` for the group (after the dispatch caught up). */
const expectNoBells = (who: ReadonlyArray<Actor>, type: GroupType, group: { readonly id: number }) =>
  Effect.forEach(
    who,
    (one) =>
      Effect.map(bellsAt(one, type, group), (bells) =>
        assert.deepStrictEqual(bells.map((b) => b.title), [], `${type} for user ${one.id}`)),
    { discard: true }
  )

/** A member of `tenant` with a name the bells will show, signed in by token. */
const named = (tenant: Tenant, firstName: string, lastName: string) =>
  makeActor(tenant, { firstName, lastName }, "token")

layer(TestApp(), { excludeTestServices: true, timeout: "120 seconds" })("group notifications", (it) => {
  describe("group_created", () => {
    it.effect("goes to admins, brokers and coordinators, not to the creator nor plain members", () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token" })
        const broker = yield* makeActor(c.tenant, { role: "broker", firstName: "Bea", lastName: "Broker" }, "token")
        const coordinator = yield* makeActor(c.tenant, { role: "coordinator" }, "token")
        const group = yield* makeGroup(c.member, { name: "Repair café" })
        const expected = {
          title: "New group: Repair café",
          body: "Mia Member created the group “Repair café”.",
          actor: c.member
        }
        for (const staff of [c.admin, broker, coordinator]) yield* expectBell(staff, "group_created", group, expected)
        yield* expectNoBells([c.member, c.other], "group_created", group)

        // A broker's own group: the other staff hear of it, the broker does not.
        const own = yield* makeGroup(broker, { name: "Brokers' corner" })
        yield* expectBell(c.admin, "group_created", own, {
          title: "New group: Brokers' corner",
          body: "Bea Broker created the group “Brokers' corner”.",
          actor: broker
        })
        yield* expectNoBells([broker], "group_created", own)
      }))
  })

  describe("group_member_joined", () => {
    it.effect("a join of a public group: the active organisers hear of it, not the joiner nor other members", () =>
      Effect.gen(function*() {
        const { member, tenant } = yield* community({ signIn: "token" })
        const [organiser, plain, newcomer] = yield* Effect.all([
          named(tenant, "Olga", "Organiser"),
          named(tenant, "Pat", "Plain"),
          named(tenant, "Nina", "Newcomer")
        ])
        const group = yield* makeGroup(member, { name: "Walkers" })
        // Without events: a bell of the same type and link within 60 s would be taken for a repeat of this one.
        yield* insertMember(group, organiser, "organiser", "active")
        yield* insertMember(group, plain, "member", "active")

        yield* join(newcomer, group)
        const expected = {
          title: "Nina Newcomer joined Walkers",
          body: "Your group has a new member.",
          actor: newcomer
        }
        for (const who of [member, organiser]) yield* expectBell(who, "group_member_joined", group, expected)
        yield* expectNoBells([plain, newcomer], "group_member_joined", group)
      }))

    it.effect("a private group: nothing while pending; on approval the other organisers hear, not the approver", () =>
      Effect.gen(function*() {
        const { member, other, tenant } = yield* community({ signIn: "token" })
        const organiser = yield* named(tenant, "Olga", "Organiser")
        const group = yield* makeGroup(member, { name: "Quiet readers", visibility: "private" })
        yield* insertMember(group, organiser, "organiser", "active")

        yield* join(other, group)
        yield* expectNoBells([member, organiser], "group_member_joined", group)
        yield* setMember(organiser, group, other, { status: "active" })
        yield* expectBell(member, "group_member_joined", group, {
          title: "Otto Other joined Quiet readers",
          body: "Your group has a new member.",
          actor: other
        })
        yield* expectNoBells([organiser, other], "group_member_joined", group)
      }))
  })

  describe("group_message", () => {
    it.effect("goes to the other active members: not the sender, nor pending or banned members, nor outsiders", () =>
      Effect.gen(function*() {
        const { member, other, tenant } = yield* community({ signIn: "token" })
        const [reader, waiting, banned] = yield* Effect.all([
          named(tenant, "Rita", "Reader"),
          named(tenant, "Wim", "Waiting"),
          named(tenant, "Bo", "Banned")
        ])
        const group = yield* makeGroup(member, { name: "Night owls", visibility: "private" })
        for (const who of [reader, waiting, banned]) yield* join(who, group)
        yield* setMember(member, group, reader, { status: "active" })
        yield* setMember(member, group, banned, { status: "banned" })

        yield* reader.client.groupChat.post({ path: { id: group.id }, payload: { body: "Anyone up\nfor a walk?" } })
          .pipe(expectOk)
        yield* expectBell(member, "group_message", group, {
          title: "Rita Reader wrote in Night owls",
          body: "Anyone up for a walk?",
          actor: reader
        })
        yield* expectNoBells([reader, waiting, banned, other], "group_message", group)
      }))
  })
})
