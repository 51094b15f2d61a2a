import { HttpApi, OpenApi } from "@effect/platform"
import { AdminEventsApi } from "./events/AdminEventsApi.js"
import { CalendarApi } from "./events/CalendarApi.js"
import { EventImageApi } from "./events/EventImageApi.js"
import { EventRsvpApi } from "./events/EventRsvpApi.js"
import { EventsApi } from "./events/EventsApi.js"
import { PollsApi } from "./events/PollsApi.js"
import { RecurringEventsApi } from "./events/RecurringEventsApi.js"
import { EventRemindersApi } from "./events/RemindersApi.js"
import { EventSeriesApi } from "./events/SeriesApi.js"
import { ValidationFailedResponse } from "./http/ApiError.js"
import { reportAllDecodeErrors } from "./http/DecodeAll.js"
import { AdminUsersApi } from "./identity/AdminUsersApi.js"
import { AuthApi, SessionApi } from "./identity/AuthApi.js"
import { UsersApi } from "./identity/UsersApi.js"
import { AdminWalletApi, WalletApi } from "./ledger/WalletApi.js"
import { AdminListingsApi } from "./listings/AdminListingsApi.js"
import { AdminAttributesApi, AttributesApi } from "./listings/AttributesApi.js"
import { AdminCategoriesApi, CategoriesApi } from "./listings/CategoriesApi.js"
import { ListingsApi } from "./listings/ListingsApi.js"
import { SystemApi } from "./system/SystemApi.js"
import { AdminConfigApi } from "./tenancy/AdminConfigApi.js"
import { SuperTenantsApi } from "./tenancy/SuperTenantsApi.js"
import { TenancyApi } from "./tenancy/TenancyApi.js"
import { AdminOrganisationsApi } from "./volunteering/AdminOrganisationsApi.js"
import { ApplicationsApi, HoursApi, OpportunitiesApi } from "./volunteering/OpportunitiesApi.js"
import { OrganisationDashboardApi } from "./volunteering/OrganisationDashboardApi.js"
import { OrganisationsApi } from "./volunteering/OrganisationsApi.js"
import { ReviewsApi } from "./volunteering/ReviewsApi.js"

class Contract extends HttpApi.make("timebank")
  .add(SystemApi)
  .add(TenancyApi)
  .add(AuthApi)
  .add(SessionApi)
  .add(UsersApi)
  .add(AdminUsersApi)
  .add(SuperTenantsApi)
  .add(AdminConfigApi)
  .add(WalletApi)
  .add(AdminWalletApi)
  .add(ListingsApi)
  .add(AdminListingsApi)
  .add(CategoriesApi)
  .add(AdminCategoriesApi)
  .add(AttributesApi)
  .add(AdminAttributesApi)
  .add(OrganisationDashboardApi)
  .add(OpportunitiesApi)
  .add(ApplicationsApi)
  .add(HoursApi)
  .add(AdminOrganisationsApi)
  .add(OrganisationsApi)
  .add(ReviewsApi)
  .add(PollsApi)
  .add(EventImageApi)
  .add(EventRsvpApi)
  .add(EventRemindersApi)
  .add(EventSeriesApi)
  .add(RecurringEventsApi)
  .add(EventsApi)
  .add(CalendarApi)
  .add(AdminEventsApi)
  .addError(ValidationFailedResponse)
  .annotate(OpenApi.Title, "timebank")
  .annotate(OpenApi.Version, "2.0.0")
  .annotate(OpenApi.Description, "Multi-tenant community time-credit exchange API")
{}

/** The whole contract: server, CLI, tests and partners share it. A route exists once. */
export const Api = reportAllDecodeErrors(Contract)
export type Api = typeof Api
