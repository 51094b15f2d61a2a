import { assert, describe, it } from "@effect/vitest"
import { DomainEvents } from "@timebank/domain"
import { eventsAllowedBy, outboundWebhookOf, WEBHOOK_EVENTS } from "@timebank/server"
import { Option } from "effect"

/** What each domain event makes of itself for partners: pure, so every rule of WebhookEvents.ts is pinned here. */

const of = (event: Parameters<typeof outboundWebhookOf>[0]) => Option.getOrUndefined(outboundWebhookOf(event))

const snapshot = {
  id: 7,
  user_id: 3,
  title: "Repair café",
  description: "Bring what is broken",
  start_time: "2030-01-01T10:00:00.000Z",
  end_time: null,
  location: "Hall",
  latitude: null,
  longitude: null,
  max_attendees: 20,
  is_online: true,
  online_link: "https://meet.example/secret",
  video_url: "https://video.example/secret",
  allow_remote_attendance: true,
  image_url: null,
  cover_image: null,
  category_id: null,
  group_id: 12,
  federated_visibility: "listed",
  members_only: false,
  status: "active",
  cancel_reason: null,
  is_recurring_template: false,
  parent_event_id: null,
  occurrence_date: null,
  series_id: null
}

const group = {
  name: "Gardeners",
  description: "Dig",
  visibility: "public",
  status: "active",
  type_id: null,
  location: null,
  owner_id: 4
}

describe("outbound webhook events", () => {
  it("names D13's events, each with its toggle; a retraction needs none", () => {
    assert.deepStrictEqual([...WEBHOOK_EVENTS].sort(), [
      "connection.accepted",
      "event.created",
      "event.updated",
      "group.created",
      "group.deleted",
      "group.member_joined",
      "group.member_left",
      "group.updated",
      "listing.created",
      "listing.updated",
      "member.opted_out",
      "member.profile_updated",
      "message.sent",
      "review.created",
      "transaction.completed",
      "volunteering.opportunity_created",
      "volunteering.opportunity_updated"
    ])
    assert.deepStrictEqual(eventsAllowedBy({}), ["member.opted_out"])
    assert.deepStrictEqual(eventsAllowedBy({ listings: true, events: false }), [
      "listing.created",
      "listing.updated",
      "member.opted_out"
    ])
    assert.sameMembers([...eventsAllowedBy({ profiles: true })], [
      "connection.accepted",
      "member.profile_updated",
      "member.opted_out"
    ])
  })

  it("listings: active ones, and the update that ends one; the author must have opted in", () => {
    const created = { listing_id: 5, user_id: 3, type: "offer", title: "Bikes", category_id: null }
    assert.deepStrictEqual(of(new DomainEvents.ListingCreated({ ...created, status: "active" })), {
      event: "listing.created",
      members: [3],
      data: { id: 5, user_id: 3, type: "offer", title: "Bikes", status: "active", category_id: null }
    })
    assert.isUndefined(of(new DomainEvents.ListingCreated({ ...created, status: "pending" })))
    const updated = { listing_id: 5, user_id: 3, fields: ["title"], updated_by: 3 }
    assert.strictEqual(of(new DomainEvents.ListingUpdated({ ...updated, status: "active" }))?.event, "listing.updated")
    assert.deepStrictEqual(
      of(new DomainEvents.ListingUpdated({ ...updated, status: "inactive", previous_status: "active" }))?.data,
      { id: 5, user_id: 3, fields: ["title"], status: "inactive" }
    )
    assert.isUndefined(of(new DomainEvents.ListingUpdated({ ...updated, status: "pending" })))
  })

  it("transactions: member-to-member transfers only, both parties opted in", () => {
    const base = { transaction_id: 9, amount: 1.5, listing_id: null, description: "Thanks" }
    assert.deepStrictEqual(
      of(new DomainEvents.TransactionCompleted({ ...base, type: "transfer", sender_id: 1, recipient_id: 2 })),
      {
        event: "transaction.completed",
        members: [1, 2],
        data: { id: 9, amount: 1.5, sender_id: 1, recipient_id: 2, listing_id: null, description: "Thanks" }
      }
    )
    for (const type of ["grant", "federated", "checkin"] as const) {
      assert.isUndefined(of(new DomainEvents.TransactionCompleted({ ...base, type, sender_id: 1, recipient_id: 2 })))
    }
    assert.isUndefined(
      of(new DomainEvents.TransactionCompleted({ ...base, type: "transfer", sender_id: null, recipient_id: 2 }))
    )
  })

  it("messages, connections and reviews name every member they involve", () => {
    const message = new DomainEvents.MessageSent({
      message_id: 1,
      thread_id: 2,
      sender_id: 3,
      recipient_id: 4,
      subject: null,
      body: "Hi"
    })
    assert.deepStrictEqual(of(message)?.members, [3, 4])
    assert.deepStrictEqual(
      of(new DomainEvents.ConnectionAccepted({ connection_id: 1, requester_id: 3, target_id: 4 })),
      { event: "connection.accepted", members: [3, 4], data: { id: 1, requester_id: 3, target_id: 4 } }
    )
    const review = { review_id: 8, reviewer_id: 3, rating: 5, notify_user_ids: [4], target_name: "Bo" }
    assert.deepStrictEqual(of(new DomainEvents.ReviewCreated({ ...review, target_type: "user", target_id: 4 })), {
      event: "review.created",
      members: [3, 4],
      data: { id: 8, reviewer_id: 3, target_type: "user", target_id: 4, member_id: 4, rating: 5 }
    })
    assert.deepStrictEqual(
      of(new DomainEvents.ReviewCreated({ ...review, target_type: "organization", target_id: 2 }))?.members,
      [3]
    )
  })

  it("events: shared ones only, without the online link, video URL or group", () => {
    const created = of(
      new DomainEvents.CommunityEventCreated({ event_id: 7, user_id: 3, event: snapshot, poll_ids: [] })
    )
    assert.strictEqual(created?.event, "event.created")
    assert.deepStrictEqual(created?.members, [])
    assert.strictEqual(created?.data["title"], "Repair café")
    for (const hidden of ["online_link", "video_url", "group_id", "members_only"]) {
      assert.notProperty(created?.data, hidden)
    }
    const hidden = { ...snapshot, federated_visibility: "none" }
    assert.isUndefined(
      of(new DomainEvents.CommunityEventCreated({ event_id: 7, user_id: 3, event: hidden, poll_ids: [] }))
    )
    const edit = { event_id: 7, user_id: 3, changed: [], fields: ["title"], updated_by: 3 }
    assert.deepStrictEqual(of(new DomainEvents.CommunityEventUpdated({ ...edit, event: snapshot }))?.data["fields"], [
      "title"
    ])
    assert.isUndefined(of(new DomainEvents.CommunityEventUpdated({ ...edit, cover_image: "c.png", title: "x" })))
  })

  it("groups: public and active ones; a group made private or deleted is retracted", () => {
    assert.deepStrictEqual(of(new DomainEvents.GroupCreated({ group_id: 2, user_id: 4, group })), {
      event: "group.created",
      members: [4],
      data: { id: 2, ...group }
    })
    const closed = { ...group, visibility: "private" }
    assert.isUndefined(of(new DomainEvents.GroupCreated({ group_id: 2, user_id: 4, group: closed })))
    const update = { group_id: 2, updated_by: 4 }
    assert.deepStrictEqual(
      of(new DomainEvents.GroupUpdated({ ...update, fields: ["visibility"], group: closed }))?.data,
      { id: 2, owner_id: 4, visibility: "private", status: "active", fields: ["visibility"] }
    )
    assert.isUndefined(of(new DomainEvents.GroupUpdated({ ...update, fields: ["name"], group: closed })))
    const deleted = { group_id: 2, name: "G", owner_id: 4, deleted_by: 4 }
    assert.deepStrictEqual(of(new DomainEvents.GroupDeleted({ ...deleted, visibility: "public" })), {
      event: "group.deleted",
      members: [],
      data: { id: 2 }
    })
    assert.isUndefined(of(new DomainEvents.GroupDeleted({ ...deleted, visibility: "private" })))
    const joined = { group_id: 2, group_name: "G", user_id: 5, role: "member", approved_by: null }
    assert.deepStrictEqual(of(new DomainEvents.GroupMemberJoined({ ...joined, visibility: "public" }))?.data, {
      group_id: 2,
      user_id: 5,
      role: "member"
    })
    assert.isUndefined(of(new DomainEvents.GroupMemberJoined({ ...joined, visibility: "private" })))
    assert.deepStrictEqual(
      of(
        new DomainEvents.GroupMemberLeft({ group_id: 2, group_name: "G", user_id: 5, reason: "banned", removed_by: 4 })
      ),
      { event: "group.member_left", members: [5], data: { group_id: 2, user_id: 5 } }
    )
  })

  it("opportunities: open ones; profiles and the opt-out", () => {
    const opportunity = { opportunity_id: 1, organisation_id: 2, title: "Tutor", created_by: 3 }
    assert.strictEqual(
      of(new DomainEvents.VolOpportunityCreated({ ...opportunity, status: "open" }))?.event,
      "volunteering.opportunity_created"
    )
    assert.isUndefined(of(new DomainEvents.VolOpportunityCreated({ ...opportunity, status: "closed" })))
    const profile = new DomainEvents.MemberProfileUpdated({
      user_id: 3,
      fields: ["bio"],
      first_name: "Mia",
      last_name: "Member",
      avatar_url: null,
      bio: "Hi",
      location: null,
      updated_by: 3
    })
    assert.deepStrictEqual(of(profile)?.members, [3])
    assert.notProperty(of(profile)?.data, "updated_by")
    assert.deepStrictEqual(of(new DomainEvents.MemberFederationOptedOut({ user_id: 3, changed_by: 3 })), {
      event: "member.opted_out",
      members: [],
      data: { member_id: 3 }
    })
  })
})
