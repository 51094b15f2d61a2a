import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import type { EventId } from "@timebank/domain"
import { Effect } from "effect"
import { expectError, expectOk, ownAddressClient } from "../fixtures/client.js"
import { type Actor, community } from "../fixtures/community.js"
import { hoursFromNow } from "../fixtures/events.js"
import { feedIds, joinGroup, makeGroup, postPath, subscriberSettled, waitForFeed } from "../fixtures/feed.js"
import { TestApp } from "../fixtures/TestApp.js"

const SUBSCRIBER = "feed-activity"

/** Creates an event over HTTP, as the organiser would (POST /api/v2/events raises CommunityEventCreated). */
const createEvent = (who: Actor, title: string, groupId?: number) =>
  Effect.flatMap(ownAddressClient(who), (client) =>
    client.events.create({
      payload: {
        title,
        description: "Bring gloves",
        start_time: hoursFromNow(48),
        ...(groupId === undefined ? {} : { group_id: groupId })
      }
    })).pipe(expectOk, Effect.map((res) => res.data))

/** The activity rows of an event in the database, deleted ones included. */
const activityRows = (eventId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ id: string; deleted: boolean; group_id: string | null }>`
      SELECT id, deleted_at IS NOT NULL AS deleted, group_id FROM feed_posts
      WHERE kind = 'activity' AND subject_type = 'event' AND subject_id = ${eventId}`).pipe(Effect.orDie)

const isActivityOf = (eventId: number) => (p: { readonly activity: { readonly subject_id: number } | null }) =>
  p.activity?.subject_id === eventId

layer(TestApp(), { excludeTestServices: true, timeout: "120 seconds" })("feed activity records", (it) => {
  describe("CommunityEventCreated", () => {
    it.effect("a new event becomes one activity post by its organiser, in the feed of everyone", () =>
      Effect.gen(function*() {
        const { admin, member, other } = yield* community({ signIn: "token" })
        const event = yield* createEvent(member, "Litter pick in the park")
        const [record] = yield* waitForFeed(other, isActivityOf(event.id))
        assert.deepStrictEqual(JSON.parse(JSON.stringify(record)), {
          id: record!.id,
          author: { id: member.id, first_name: "Mia", last_name: "Member", avatar_url: null },
          body: "Litter pick in the park",
          image_url: null,
          group_id: null,
          kind: "activity",
          activity: { type: "event_created", subject_type: "event", subject_id: event.id },
          like_count: 0,
          comment_count: 0,
          liked_by_me: false,
          is_hidden: false,
          created_at: JSON.parse(JSON.stringify(record!.created_at))
        })
        // It is a post like any other: readable, likeable, and its author's (or an admin's) to delete.
        assert.strictEqual((yield* admin.client.feed.get(postPath(record!.id))).data.kind, "activity")
        assert.strictEqual((yield* other.client.feed.like(postPath(record!.id))).data.like_count, 1)
        yield* other.client.feed.delete(postPath(record!.id)).pipe(expectError(403, "FORBIDDEN"))

        // Redelivered (the same outbox event again), it writes nothing twice.
        const sql = yield* SqlClient.SqlClient
        yield* sql`
          INSERT INTO outbox_events (tenant_id, event_type, payload)
          SELECT tenant_id, event_type, payload FROM outbox_events
          WHERE event_type = 'CommunityEventCreated' AND (payload->>'event_id')::bigint = ${event.id}`
        yield* subscriberSettled(SUBSCRIBER)
        assert.strictEqual((yield* activityRows(event.id)).length, 1)
        assert.deepStrictEqual((yield* feedIds(other)).filter((id) => id === record!.id), [record!.id])
      }))

    it.effect("an event of a group lands in that group (private: members only); another community's group is refused", () =>
      Effect.gen(function*() {
        const { admin, member, other } = yield* community({ signIn: "token" })
        const group = yield* makeGroup(member, { visibility: "private" })
        const inGroup = yield* createEvent(member, "Group picnic", group.id)
        const [record] = yield* waitForFeed(member, isActivityOf(inGroup.id))
        assert.strictEqual(record!.group_id, group.id)
        assert.deepStrictEqual(yield* feedIds(member, group.id), [record!.id])
        assert.deepStrictEqual(yield* feedIds(admin, group.id), [record!.id])
        assert.deepStrictEqual(yield* feedIds(other), [])
        yield* other.client.feed.get(postPath(record!.id)).pipe(expectError(404, "NOT_FOUND"))
        yield* joinGroup(group, other)
        assert.deepStrictEqual(yield* feedIds(other), [record!.id])

        // Another community's group is no group of this one: the event is refused, so nothing reaches the feed.
        const elsewhere = yield* community({ signIn: "token" })
        const foreign = yield* makeGroup(elsewhere.member)
        const client = yield* ownAddressClient(member)
        const refused = yield* client.events.create({
          payload: {
            title: "Stray group id",
            description: "Bring gloves",
            start_time: hoursFromNow(48),
            group_id: foreign.id
          }
        }).pipe(expectError(422, "VALIDATION_ERROR"))
        assert.deepStrictEqual(refused.fields, ["group_id"])
        yield* subscriberSettled(SUBSCRIBER)
        assert.deepStrictEqual(yield* feedIds(elsewhere.member, foreign.id), [])
        assert.deepStrictEqual(yield* feedIds(member), [record!.id])
      }))

    it.effect("while the feed is off nothing is written; deleting the event removes its record", () =>
      Effect.gen(function*() {
        const off = yield* community({ features: { feed: false }, signIn: "token" })
        const unseen = yield* createEvent(off.member, "Quiet event")
        yield* subscriberSettled(SUBSCRIBER)
        assert.deepStrictEqual(yield* activityRows(unseen.id), [])

        const { member, other } = yield* community({ signIn: "token" })
        const event = yield* createEvent(member, "Soon cancelled for good")
        const [record] = yield* waitForFeed(other, isActivityOf(event.id))
        const client = yield* ownAddressClient(member)
        yield* client.events.delete({ path: { id: event.id as EventId } }).pipe(expectOk)
        yield* subscriberSettled(SUBSCRIBER)
        assert.deepStrictEqual((yield* activityRows(event.id)).map((r) => r.deleted), [true])
        yield* other.client.feed.get(postPath(record!.id)).pipe(expectError(404, "NOT_FOUND"))
        assert.deepStrictEqual(yield* feedIds(other), [])
      }))
  })
})
