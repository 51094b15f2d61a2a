import { HttpApiBuilder } from "@effect/platform"
import { Api, ok } from "@timebank/domain"
import { Effect } from "effect"
import { RsvpService } from "./RsvpService.js"

export const RsvpHttpLive = HttpApiBuilder.group(Api, "eventRsvp", (handlers) =>
  Effect.gen(function*() {
    const rsvps = yield* RsvpService
    return handlers
      .handle("rsvp", ({ path, payload }) => Effect.map(rsvps.rsvp(path.id, payload.status), ok))
      .handle("removeRsvp", ({ path }) => Effect.map(rsvps.removeRsvp(path.id), ok))
      .handle("waitlist", ({ path }) => Effect.map(rsvps.waitlist(path.id), ok))
      .handle("joinWaitlist", ({ path }) => Effect.map(rsvps.joinWaitlist(path.id), ok))
      .handle("leaveWaitlist", ({ path }) => Effect.map(rsvps.leaveWaitlist(path.id), ok))
      .handle("attendees", ({ path }) => Effect.map(rsvps.attendees(path.id), ok))
      .handle("checkIn", ({ path }) => Effect.map(rsvps.checkIn(path.id, path.attendeeId), ok))
  }))
