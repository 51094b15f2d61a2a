import { Layer } from "effect"
import { AdminEventsService } from "./AdminEventsService.js"
import { CalendarHttpLive } from "./calendar/CalendarHttp.js"
import { CalendarService } from "./calendar/CalendarService.js"
import { EventImageHttpLive } from "./EventImageHttp.js"
import { EventImageService } from "./EventImageService.js"
import { EventsAdminHttpLive } from "./EventsAdminHttp.js"
import { EventsHttpLive } from "./EventsHttp.js"
import { EventsService } from "./EventsService.js"
import { RecurringEventsHttpLive } from "./recurrence/RecurringEventsHttp.js"
import { RecurringEventsService } from "./recurrence/RecurringEventsService.js"
import { SeriesHttpLive } from "./recurrence/SeriesHttp.js"
import { SeriesService } from "./recurrence/SeriesService.js"
import { RemindersHttpLive } from "./reminders/RemindersHttp.js"
import { RemindersService } from "./reminders/RemindersService.js"
import { EventEntityLive } from "./rsvp/EventEntityLive.js"
import { EventPlacesRepo } from "./rsvp/EventPlacesRepo.js"
import { RsvpHttpLive } from "./rsvp/RsvpHttp.js"
import { RsvpService } from "./rsvp/RsvpService.js"

export * from "./AdminEventsService.js"
export * from "./calendar/CalendarService.js"
export * from "./calendar/EventCalendar.js"
export * from "./EventAudience.js"
export * from "./EventImageHttp.js"
export * from "./EventImageService.js"
export * from "./EventInputs.js"
export * from "./EventLifecycle.js"
export * from "./EventReports.js"
export * from "./EventRow.js"
export * from "./EventSnapshot.js"
export * from "./EventsPolicy.js"
export * from "./EventsService.js"
export * from "./EventStats.js"
export * from "./EventView.js"
export * from "./EventViews.js"
export * from "./recurrence/CustomRule.js"
export * from "./recurrence/Recurrence.js"
export * from "./recurrence/RecurrenceRequest.js"
export * from "./recurrence/RecurringEventsService.js"
export * from "./recurrence/SeriesService.js"
export * from "./reminders/ReminderDelivery.js"
export * from "./reminders/ReminderJobs.js"
export * from "./reminders/ReminderRules.js"
export * from "./reminders/RemindersService.js"
export * from "./rsvp/EventEntityLive.js"
export * from "./rsvp/EventPlaces.js"
export * from "./rsvp/EventPlacesRepo.js"
export * from "./rsvp/RsvpService.js"
export * as Waitlist from "./rsvp/Waitlist.js"

/** Events: CRUD, lists, cancel and delete, images, RSVPs, waitlist, attendees, check-in, series, reminders, ICS. */
export const EventsLive = Layer.mergeAll(
  EventImageHttpLive.pipe(Layer.provide(EventImageService.Default)),
  RsvpHttpLive.pipe(Layer.provide(RsvpService.Default)),
  EventsHttpLive.pipe(Layer.provide(EventsService.Default)),
  EventsAdminHttpLive.pipe(Layer.provide(AdminEventsService.Default)),
  SeriesHttpLive.pipe(Layer.provide(SeriesService.Default)),
  RemindersHttpLive.pipe(Layer.provide(RemindersService.Default)),
  CalendarHttpLive.pipe(Layer.provide(CalendarService.Default)),
  RecurringEventsHttpLive.pipe(Layer.provide(RecurringEventsService.Default))
  // One line per HTTP layer of this feature, each with its services provided.
)

/**
 * What runs on the cluster: the Event entity (one per event), reading and writing through `places`. Tests give it a
 * repo that misbehaves on purpose. Reminder delivery is the `reminders.deliver` job (`ReminderJobsLive`).
 */
export const eventsClusterWith = <E, R>(places: Layer.Layer<EventPlacesRepo, E, R>) =>
  EventEntityLive.pipe(Layer.provide(places))

export const EventsClusterLive = eventsClusterWith(EventPlacesRepo.Default)
