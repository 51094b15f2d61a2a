import type { CurrentTenant, DomainEventOf } from "@timebank/domain"
import { Effect } from "effect"
import { EventAudience } from "../events/EventAudience.js"
import type { Channels, Delivery } from "./Dispatcher.js"
import { ADMIN_FANOUT_ROLES } from "./NotificationTypes.js"
import { notificationRules } from "./Rules.js"

/** The events feature's events that notify (spec "Event-related notifications", decisions D12). */
const EVENT_TAGS = [
  "CommunityEventCreated",
  "CommunityEventUpdated",
  "EventCancelled",
  "EventDeleted",
  "RsvpChanged",
  "WaitlistPromoted",
  "EventReminderDue"
] as const
type EventTag = typeof EVENT_TAGS[number]

/** The edits attendees hear about. */
const NOTIFIED_CHANGES: ReadonlySet<string> = new Set(["title", "start_time", "end_time", "location"])
/** The answers the organiser hears about. */
const ORGANISER_HEARS: ReadonlySet<string> = new Set(["going", "interested"])

const linkOf = (eventId: number) => `/events/${eventId}`

type CommunityEventSnapshot = DomainEventOf<"CommunityEventCreated">["event"]

const about = (event: CommunityEventSnapshot) => ({ title: event.title, when: new Date(event.start_time) })

/** A reminder's channel: `platform` is the bell, `email` the e-mail, `both` (and the automatic ones) both. */
const reminderChannels = (channel: string | null): Channels =>
  channel === "platform" ? "bell" : channel === "email" ? "email" : "bell+email"

/** Minutes before the start each kind of reminder stands for. */
const reminderMinutes = (event: DomainEventOf<"EventReminderDue">): number =>
  event.offset_minutes ?? (event.kind === "auto_1h" ? 60 : 1440)

/** The deliveries an event of the events feature raises; `source` is its outbox id. */
const eventDeliveries = (
  event: DomainEventOf<EventTag>,
  source: string
): Effect.Effect<ReadonlyArray<Delivery>, never, EventAudience | CurrentTenant> => {
  const base = { source, link: linkOf(event.event_id) }
  switch (event._tag) {
    case "CommunityEventCreated":
      return Effect.succeed([{
        ...base,
        type: "event_created",
        to: { roles: ADMIN_FANOUT_ROLES, except: event.user_id },
        actorId: event.user_id,
        params: about(event.event),
        channels: "bell+email"
      }])
    case "CommunityEventUpdated": {
      const snapshot = event.event
      if (snapshot === undefined || !event.changed.some((field) => NOTIFIED_CHANGES.has(field))) {
        return Effect.succeed([])
      }
      const eventIds = event.event_ids ?? [event.event_id]
      return Effect.map(
        Effect.flatMap(EventAudience, (audience) => audience.goingOrInterested(eventIds)),
        (followers): ReadonlyArray<Delivery> => [{
          ...base,
          type: "event_updated",
          // The organiser (and whoever edited) may follow their own event; they know of their own edit.
          to: { members: followers.filter((id) => id !== event.user_id && id !== event.updated_by) },
          actorId: event.updated_by,
          params: about(snapshot),
          channels: "bell+email"
        }]
      )
    }
    case "EventCancelled":
    case "EventDeleted":
      return Effect.succeed(
        event.recipients.length === 0 ? [] : [{
          ...base,
          type: "event_cancelled",
          to: { members: event.recipients },
          actorId: event._tag === "EventCancelled" ? event.cancelled_by : event.deleted_by,
          params: { ...about(event.event), reason: event._tag === "EventCancelled" ? event.reason ?? "none" : "none" },
          channels: "bell+email"
        }]
      )
    case "RsvpChanged": {
      if (event.to === null) return Effect.succeed([])
      const params = { title: event.event_title, status: event.to }
      const organiser: ReadonlyArray<Delivery> = ORGANISER_HEARS.has(event.to)
        ? [{
          ...base,
          type: "event_rsvp",
          to: { members: [event.organiser_id] },
          actorId: event.user_id,
          params,
          channels: "bell+email"
        }]
        : []
      // The attendee's confirmation is the service speaking, not their own act: no actor, so it is never skipped.
      const confirmation: Delivery = {
        ...base,
        type: "event_rsvp_confirmed",
        to: { members: [event.user_id] },
        actorId: null,
        params,
        channels: "bell+email"
      }
      return Effect.succeed([...organiser, confirmation])
    }
    case "WaitlistPromoted":
      return Effect.succeed([{
        ...base,
        type: "event_waitlist_promoted",
        to: { members: [event.user_id] },
        actorId: null,
        params: { title: event.event_title },
        channels: "bell+email"
      }])
    case "EventReminderDue":
      return Effect.succeed([{
        ...base,
        type: "event_reminder",
        to: { members: [event.user_id] },
        actorId: null,
        params: { ...about(event.event), minutes: reminderMinutes(event) },
        channels: reminderChannels(event.channel)
      }])
  }
}

/** The events feature's notification rules. */
export const eventRules = notificationRules(EVENT_TAGS, eventDeliveries)
