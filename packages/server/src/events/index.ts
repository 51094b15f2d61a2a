import { Layer } from "effect"
import { AdminEventsService } from "./AdminEventsService.js"
import { CalendarHttpLive } from "./CalendarHttp.js"
import { CalendarService } from "./CalendarService.js"
import { EventEntityLive } from "./EventEntityLive.js"
import { EventImageHttpLive } from "./EventImageHttp.js"
import { EventImageService } from "./EventImageService.js"
import { EventPlacesRepo } from "./EventPlacesRepo.js"
import { EventsAdminHttpLive } from "./EventsAdminHttp.js"
import { EventsHttpLive } from "./EventsHttp.js"
import { EventsService } from "./EventsService.js"
import { PollsHttpLive } from "./PollsHttp.js"
import { PollsService } from "./PollsService.js"
import { RecurringEventsHttpLive } from "./RecurringEventsHttp.js"
import { RecurringEventsService } from "./RecurringEventsService.js"
import { ReminderSchedulerLive } from "./ReminderDelivery.js"
import { RemindersHttpLive } from "./RemindersHttp.js"
import { RemindersService } from "./RemindersService.js"
import { RsvpHttpLive } from "./RsvpHttp.js"
import { RsvpService } from "./RsvpService.js"
import { SeriesHttpLive } from "./SeriesHttp.js"
import { SeriesService } from "./SeriesService.js"

export * from "./AdminEventsService.js"
export * from "./CalendarRepo.js"
export * from "./CalendarService.js"
export * from "./EventCalendar.js"
export * from "./EventEntityLive.js"
export * from "./EventImageHttp.js"
export * from "./EventImageService.js"
export * from "./EventInputs.js"
export * from "./EventLifecycle.js"
export * from "./EventPlaces.js"
export * from "./EventPlacesRepo.js"
export * from "./EventRepo.js"
export * from "./EventSnapshot.js"
export * from "./EventsPolicy.js"
export * from "./EventsService.js"
export * from "./EventViews.js"
export * from "./PollRepo.js"
export * from "./PollsService.js"
export * from "./Recurrence.js"
export * from "./RecurrenceRepo.js"
export * from "./RecurringEventsService.js"
export * from "./ReminderDelivery.js"
export * from "./ReminderRepo.js"
export * from "./RemindersService.js"
export * from "./RsvpService.js"
export * from "./SeriesRepo.js"
export * from "./SeriesService.js"

/** Events: CRUD, lists, cancel and delete, images, polls, RSVPs, waitlist, attendees, check-in, admin events. */
export const EventsLive = Layer.mergeAll(
  Layer.empty,
  PollsHttpLive.pipe(Layer.provide(PollsService.Default)),
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
 * What runs on the cluster: the Event entity (one per event), reading and writing through `places`, and reminder
 * delivery (a singleton). Tests give it a repo that misbehaves on purpose.
 */
export const eventsClusterWith = <E, R>(places: Layer.Layer<EventPlacesRepo, E, R>) =>
  Layer.mergeAll(EventEntityLive.pipe(Layer.provide(places)), ReminderSchedulerLive)

export const EventsClusterLive = eventsClusterWith(EventPlacesRepo.Default)
