/**
 * Every domain event class, one module per feature. Exported from the package as the namespace `DomainEvents`
 * (`new DomainEvents.ListingCreated({ ... })`): several events share their name with an API shape (`ListingDeleted`
 * the event and `ListingDeleted` the response body), and the namespace keeps both importable side by side.
 */
export * from "./connections/events.js"
export * from "./events/events.js"
export * from "./federation/events.js"
export * from "./feed/events.js"
export * from "./gamification/events.js"
export * from "./groups/events.js"
export * from "./identity/events.js"
export * from "./ledger/events.js"
export * from "./listings/events.js"
export * from "./matching/events.js"
export * from "./messaging/events.js"
export * from "./moderation/events.js"
export * from "./polls/events.js"
export * from "./tenancy/events.js"
export * from "./volunteering/events.js"
