import { Layer } from "effect"
import { AdminOrganisationsHttpLive } from "./AdminOrganisationsHttp.js"
import { AdminOrganisationsService } from "./AdminOrganisationsService.js"
import { ApplicationsService } from "./ApplicationsService.js"
import { OrganisationDashboardHttpLive } from "./DashboardHttp.js"
import { DashboardService } from "./DashboardService.js"
import { HoursService } from "./HoursService.js"
import { ApplicationsHttpLive, HoursHttpLive, OpportunitiesHttpLive } from "./OpportunitiesHttp.js"
import { OpportunitiesService } from "./OpportunitiesService.js"
import { OrganisationsHttpLive } from "./OrganisationsHttp.js"
import { OrganisationsService } from "./OrganisationsService.js"
import { OrganisationWalletService } from "./OrganisationWalletService.js"
import { AdminReviewsHttpLive } from "./ReviewsAdminHttp.js"
import { ReviewsAdminService } from "./ReviewsAdminService.js"
import { ReviewsHttpLive } from "./ReviewsHttp.js"
import { ReviewsService } from "./ReviewsService.js"

export * from "./AdminOrganisationsService.js"
export * from "./ApplicationRepo.js"
export * from "./ApplicationsService.js"
export * from "./DashboardRepo.js"
export * from "./DashboardService.js"
export * from "./DirectoryPage.js"
export * from "./HourLogRepo.js"
export * from "./HoursService.js"
export * from "./OpportunitiesService.js"
export * from "./OpportunityCandidates.js"
export * from "./OpportunityRepo.js"
export * from "./OrganisationAggregates.js"
export * from "./OrganisationPolicy.js"
export * from "./OrganisationRegistration.js"
export * from "./OrganisationRepo.js"
export * from "./OrganisationsService.js"
export * from "./OrganisationViews.js"
export * from "./OrganisationWalletService.js"
export * from "./ReviewRepo.js"
export * from "./ReviewsAdminService.js"
export * from "./ReviewsService.js"
export * from "./VolunteeringReports.js"
export * from "./VolunteeringViews.js"

/** Volunteering: organisations, dashboards, opportunities, applications, hours, reviews, admin organisations. */
export const VolunteeringLive = Layer.mergeAll(
  Layer.empty,
  OrganisationsHttpLive.pipe(Layer.provide(OrganisationsService.Default)),
  ReviewsHttpLive.pipe(Layer.provide(ReviewsService.Default)),
  AdminReviewsHttpLive.pipe(Layer.provide(ReviewsAdminService.Default)),
  AdminOrganisationsHttpLive.pipe(Layer.provide(AdminOrganisationsService.Default)),
  OrganisationDashboardHttpLive.pipe(
    Layer.provide(Layer.mergeAll(DashboardService.Default, OrganisationWalletService.Default))
  ),
  Layer.mergeAll(OpportunitiesHttpLive, ApplicationsHttpLive, HoursHttpLive).pipe(
    Layer.provide(Layer.mergeAll(OpportunitiesService.Default, ApplicationsService.Default, HoursService.Default))
  )
  // One line per HTTP layer of this feature, each with its services provided.
)
