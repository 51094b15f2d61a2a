import { HttpApi, OpenApi } from "@effect/platform"
import { ConnectionsApi } from "./connections/ConnectionsApi.js"
import { AdminBlogApi, BlogApi } from "./content/BlogApi.js"
import { AdminHelpApi, HelpApi } from "./content/HelpApi.js"
import { AdminEventsApi } from "./events/AdminEventsApi.js"
import { CalendarApi } from "./events/CalendarApi.js"
import { EventImageApi } from "./events/EventImageApi.js"
import { EventRsvpApi } from "./events/EventRsvpApi.js"
import { EventsApi } from "./events/EventsApi.js"
import { RecurringEventsApi } from "./events/RecurringEventsApi.js"
import { EventRemindersApi } from "./events/RemindersApi.js"
import { EventSeriesApi } from "./events/SeriesApi.js"
import { CreditCommonsApi } from "./federation/CreditCommonsApi.js"
import { FederatedBrowseApi } from "./federation/FederatedBrowseApi.js"
import { FederatedMessagesApi } from "./federation/FederatedMessagesApi.js"
import { FederationAccountApi } from "./federation/FederationAccountsApi.js"
import { FederationDeliveriesApi } from "./federation/FederationDeliveriesApi.js"
import { FEDERATION_DIALECT_DOCS } from "./federation/FederationDialectDocs.js"
import { FederationInboundApi } from "./federation/FederationInboundApi.js"
import { AdminFederationKeysApi } from "./federation/FederationKeysApi.js"
import { FederationOAuthApi } from "./federation/FederationOAuthApi.js"
import { FederationPartnersApi } from "./federation/FederationPartnersApi.js"
import { AdminFederationSettingsApi, SuperFederationApi } from "./federation/FederationSwitchesApi.js"
import { FederationTransactionsApi } from "./federation/FederationTransactionsApi.js"
import { FederationTransfersApi } from "./federation/FederationTransfersApi.js"
import { FederationWebhooksApi } from "./federation/FederationWebhooksApi.js"
import { FederationWritesApi } from "./federation/FederationWritesApi.js"
import { KomunitinApi } from "./federation/KomunitinApi.js"
import { AdminCommentsApi, AdminFeedApi } from "./feed/AdminFeedApi.js"
import { FeedApi } from "./feed/FeedApi.js"
import { AdminGamificationApi, AdminUserBadgesApi } from "./gamification/AdminGamificationApi.js"
import { GamificationApi } from "./gamification/GamificationApi.js"
import { AdminGroupGeocodingApi } from "./groups/AdminGroupGeocodingApi.js"
import { AdminGroupsApi } from "./groups/AdminGroupsApi.js"
import { AdminGroupTypesApi } from "./groups/AdminGroupTypesApi.js"
import { GroupChatApi, GroupMembersApi } from "./groups/GroupMembershipApi.js"
import { GroupsApi } from "./groups/GroupsApi.js"
import { ValidationFailedResponse } from "./http/ApiError.js"
import { reportAllDecodeErrors } from "./http/DecodeAll.js"
import { withOpenApiDocument } from "./http/OpenApiDocument.js"
import { AdminUsersApi } from "./identity/AdminUsersApi.js"
import { AuthApi, SessionApi } from "./identity/AuthApi.js"
import { UsersApi } from "./identity/UsersApi.js"
import { AdminWalletApi, WalletApi } from "./ledger/WalletApi.js"
import { AdminListingsApi } from "./listings/AdminListingsApi.js"
import { AdminAttributesApi, AttributesApi } from "./listings/AttributesApi.js"
import { AdminCategoriesApi, CategoriesApi } from "./listings/CategoriesApi.js"
import { ListingsApi } from "./listings/ListingsApi.js"
import { AdminMatchingApi } from "./matching/AdminMatchingApi.js"
import { MatchingApi } from "./matching/MatchingApi.js"
import { MessagesApi } from "./messaging/MessagesApi.js"
import { AdminGroupModerationApi } from "./moderation/AdminGroupModerationApi.js"
import { AdminReportsApi } from "./moderation/AdminReportsApi.js"
import { ReportsApi } from "./moderation/ReportsApi.js"
import { AdminEmailApi, UnsubscribeApi } from "./notifications/MailApi.js"
import { NotificationsApi, NotificationSettingsApi } from "./notifications/NotificationsApi.js"
import { PushApi, PushV2Api } from "./notifications/PushApi.js"
import { PollsApi } from "./polls/PollsApi.js"
import { AdminFunderReportsApi } from "./reports/FunderReportsApi.js"
import { AdminActivityApi } from "./system/ActivityApi.js"
import { AdminCacheApi } from "./system/CacheApi.js"
import { AdminDashboardApi } from "./system/DashboardApi.js"
import { AdminBackgroundJobsApi, AdminCronJobsApi } from "./system/JobsApi.js"
import { SystemApi } from "./system/SystemApi.js"
import { AdminConfigApi } from "./tenancy/AdminConfigApi.js"
import { AdminConfigAreasApi } from "./tenancy/AdminConfigAreasApi.js"
import { SuperTenantsApi } from "./tenancy/SuperTenantsApi.js"
import { TenancyApi } from "./tenancy/TenancyApi.js"
import { AdminOrganisationsApi } from "./volunteering/AdminOrganisationsApi.js"
import { AdminReviewsApi } from "./volunteering/AdminReviewsApi.js"
import { ApplicationsApi, HoursApi, OpportunitiesApi } from "./volunteering/OpportunitiesApi.js"
import { OrganisationDashboardApi } from "./volunteering/OrganisationDashboardApi.js"
import { OrganisationsApi } from "./volunteering/OrganisationsApi.js"
import { ReviewsApi } from "./volunteering/ReviewsApi.js"

const DESCRIPTION = `Multi-tenant community time-credit exchange API.

**Community.** Every route except the health probes is addressed to one community (tenant): send \`X-Tenant-ID\` \
or \`X-Tenant-Slug\`, or call the community's host name. On the docs page, choose *Authorize* and enter the slug once.

**Authentication.** \`POST /api/v2/auth/login\` answers an access token: send it as \`Authorization: Bearer <token>\`. \
Cookie sessions work too; they send \`X-CSRF-Token\` (from \`GET /api/v2/csrf-token\`) with POST, PUT, PATCH and DELETE.

**Envelopes.** A success is \`{"data": ..., "meta": {...}}\`. Lists are cursor pages (pass \`meta.cursor\` back as \
\`?cursor=\`) or, for admins, offset pages (\`?page=&per_page=\`). An error is \
\`{"errors": [{"code": "...", "message": "...", "field": "..."}]}\`; each response lists the codes it can carry.

**Any request** may also be answered 404 \`NOT_FOUND\` (no such route), 405 \`METHOD_NOT_ALLOWED\` (with \`Allow\`), \
408 \`REQUEST_TIMEOUT\`, 414 \`URI_TOO_LONG\` or 431 \`HEADERS_TOO_LARGE\`, in the same envelope. Every response \
carries \`X-Request-Id\`, the one the request sent when it is usable.`

class Contract extends HttpApi.make("timebank")
  .add(SystemApi)
  .add(TenancyApi)
  .add(AuthApi)
  .add(SessionApi)
  .add(UsersApi)
  .add(AdminUsersApi)
  .add(AdminUserBadgesApi)
  .add(SuperTenantsApi)
  .add(AdminConfigApi)
  .add(AdminCacheApi)
  .add(AdminBackgroundJobsApi)
  .add(AdminCronJobsApi)
  .add(AdminDashboardApi)
  .add(AdminActivityApi)
  .add(AdminConfigAreasApi)
  .add(WalletApi)
  .add(AdminWalletApi)
  .add(ListingsApi)
  .add(AdminListingsApi)
  .add(CategoriesApi)
  .add(AdminCategoriesApi)
  .add(AttributesApi)
  .add(AdminAttributesApi)
  .add(MatchingApi)
  .add(AdminMatchingApi)
  .add(OrganisationDashboardApi)
  .add(OpportunitiesApi)
  .add(ApplicationsApi)
  .add(HoursApi)
  .add(AdminOrganisationsApi)
  .add(OrganisationsApi)
  .add(ReviewsApi)
  .add(AdminReviewsApi)
  .add(PollsApi)
  .add(MessagesApi)
  .add(ConnectionsApi)
  .add(HelpApi)
  .add(AdminHelpApi)
  .add(BlogApi)
  .add(AdminBlogApi)
  .add(ReportsApi)
  .add(AdminReportsApi)
  .add(AdminFunderReportsApi)
  .add(GroupsApi)
  .add(GroupMembersApi)
  .add(GroupChatApi)
  .add(AdminGroupsApi)
  .add(AdminGroupGeocodingApi)
  .add(AdminGroupModerationApi)
  .add(AdminGroupTypesApi)
  .add(EventImageApi)
  .add(EventRsvpApi)
  .add(EventRemindersApi)
  .add(EventSeriesApi)
  .add(RecurringEventsApi)
  .add(EventsApi)
  .add(CalendarApi)
  .add(AdminEventsApi)
  .add(NotificationsApi)
  .add(NotificationSettingsApi)
  .add(PushApi)
  .add(PushV2Api)
  .add(UnsubscribeApi)
  .add(AdminEmailApi)
  .add(FeedApi)
  .add(GamificationApi)
  .add(AdminGamificationApi)
  .add(AdminFeedApi)
  .add(AdminCommentsApi)
  .add(SuperFederationApi)
  .add(AdminFederationSettingsApi)
  .add(AdminFederationKeysApi)
  .add(FederationPartnersApi)
  .add(FederationDeliveriesApi)
  .add(FederationWebhooksApi)
  .add(FederationOAuthApi)
  .add(FederationInboundApi)
  .add(FederatedBrowseApi)
  .add(FederationTransactionsApi)
  .add(FederationTransfersApi)
  .add(FederationWritesApi)
  .add(FederatedMessagesApi)
  .add(FederationAccountApi)
  .add(KomunitinApi)
  .add(CreditCommonsApi)
  .addError(ValidationFailedResponse)
  .annotate(OpenApi.Title, "timebank")
  .annotate(OpenApi.Version, "2.0.0")
  .annotate(OpenApi.Description, DESCRIPTION)
{}

/** The whole contract: server, CLI, tests and partners share it. A route exists once. */
export const Api = withOpenApiDocument(reportAllDecodeErrors(Contract), FEDERATION_DIALECT_DOCS)
export type Api = typeof Api
