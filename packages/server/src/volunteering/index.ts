import { Layer } from "effect"

export * from "./OrganisationAggregates.js"
export * from "./OrganisationPolicy.js"
export * from "./OrganisationRegistration.js"
export * from "./OrganisationRepo.js"
export * from "./OrganisationViews.js"

/** Volunteering: organisations, dashboards, opportunities, applications, hours, reviews, admin organisations. */
export const VolunteeringLive = Layer.mergeAll(
  Layer.empty
  // One line per HTTP layer of this feature, each with its services provided.
)
