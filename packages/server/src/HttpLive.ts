import { type HttpApi, HttpApiBuilder, HttpApiSwagger, HttpMiddleware, HttpServerResponse } from "@effect/platform"
import {
  Api,
  BlogFeature,
  ConnectionsFeature,
  EventCreateRateLimit,
  EventDeleteRateLimit,
  EventImageRateLimit,
  EventsFeature,
  FeedFeature,
  GamificationFeature,
  GroupsFeature,
  HelpFeature,
  ListingCreateRateLimit,
  ListingsFeature,
  LoginRateLimit,
  MatchingFeature,
  MessagesFeature,
  OrganisationDetailRateLimit,
  OrganisationDirectoryRateLimit,
  OrganisationRegistrationRateLimit,
  PasswordResetRateLimit,
  PollsFeature,
  RegisterRateLimit,
  VolunteeringFeature
} from "@timebank/domain"
import { Effect, Layer } from "effect"
import { ConnectionsLive } from "./connections/index.js"
import { ContentLive } from "./content/index.js"
import { EventsClusterLive, EventsLive, ReminderJobsLive } from "./events/index.js"
import {
  FederationClusterLive,
  FederationDialects,
  FederationLive,
  FederationMiddlewareLive,
  OutboundTransferJobsLive,
  WebhookJobsLive
} from "./federation/index.js"
import { GroupFeedActivityLive } from "./feed/GroupFeedActivityLive.js"
import { FeedClusterLive, FeedLive } from "./feed/index.js"
import { GamificationClusterLive, GamificationJobsLive, GamificationLive } from "./gamification/index.js"
import { GroupsAdminLive, GroupsLive } from "./groups/index.js"
import {
  AdminUsersLive,
  AuthenticationLive,
  FirstAdminAccountsLive,
  IdentityHttpLive,
  IdentityJobsLive,
  IdentityService,
  OptionalAuthenticationLive,
  PresentedCredentials,
  TenantMiddlewareLive,
  UserAccounts,
  UserRepo
} from "./identity/index.js"
import { LedgerClusterLive, LedgerHttpLive, LedgerService, LedgerVerify } from "./ledger/index.js"
import { ListingsLive } from "./listings/index.js"
import { MatchingLive } from "./matching/index.js"
import { MessagingLive } from "./messaging/index.js"
import { GroupModerationQueueLive } from "./moderation/GroupModerationQueueHttp.js"
import { ModerationLive } from "./moderation/index.js"
import {
  FreshBells,
  MailJobsLive,
  NotificationsClusterLive,
  NotificationsLive,
  REALTIME_PATH,
  RealtimeLive
} from "./notifications/index.js"
import { AppConfig } from "./platform/AppConfig.js"
import { auditTrail } from "./platform/AuditTrail.js"
import { featureGateLayer } from "./platform/FeatureGate.js"
import { FileStore, serveUpload, UPLOADS_PATH } from "./platform/FileStore.js"
import { GeocoderLive } from "./platform/GeocoderLive.js"
import { DecodeErrorsLive, httpEdge } from "./platform/HttpEdge.js"
import { JobRegistry } from "./platform/JobRegistry.js"
import { leanServe } from "./platform/LeanServe.js"
import { rateLimitLayer } from "./platform/RateLimit.js"
import { RouteTable } from "./platform/RouteTable.js"
import { untracedRequests } from "./platform/Telemetry.js"
import { TenantCaches } from "./platform/TenantCaches.js"
import { PollsLive } from "./polls/index.js"
import { FunderReportsLive } from "./reports/index.js"
import { ActivityHttpLive, AdminCacheHttpLive, DashboardLive, SystemHttpLive } from "./system/index.js"
import { JobSchedulerLive, JobsHttpLive } from "./system/jobs/index.js"
import {
  RankingHealth,
  SignInTenantLive,
  TenancyAdminHttpLive,
  TenancyHttpLive,
  TenantConfig,
  TenantDirectory,
  TenantRepo,
  TenantService
} from "./tenancy/index.js"
import { VolunteeringLive } from "./volunteering/index.js"

const DOCS_PATH = "/api/docs"
const OPENAPI_PATH = "/api/v2/openapi.json"
const FRAMEWORK_HEALTH_PATH = "/api/framework/health"

const UPLOADS_ROUTE = `${UPLOADS_PATH}/*`

/** Routes served outside the HttpApi contract: the framework health check and stored uploads. */
const RawRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const store = yield* FileStore
    yield* router.get(FRAMEWORK_HEALTH_PATH, HttpServerResponse.unsafeJson({ status: "ok" }))
    yield* router.get(UPLOADS_ROUTE, serveUpload(store))
  })
).pipe(Layer.provide(FileStore.Default))

/** Middleware that groups declare: the tenant of the request, then its caller, then the feature switches. */
const MiddlewareLive = Layer.mergeAll(
  TenantMiddlewareLive.pipe(Layer.provide(PresentedCredentials.Default)),
  SignInTenantLive,
  AuthenticationLive,
  OptionalAuthenticationLive,
  // The rate limits the contract declares (spec "Limits"), one line each.
  rateLimitLayer(LoginRateLimit),
  rateLimitLayer(RegisterRateLimit),
  rateLimitLayer(ListingCreateRateLimit),
  rateLimitLayer(EventCreateRateLimit),
  rateLimitLayer(EventDeleteRateLimit),
  rateLimitLayer(EventImageRateLimit),
  rateLimitLayer(OrganisationRegistrationRateLimit),
  rateLimitLayer(OrganisationDirectoryRateLimit),
  rateLimitLayer(OrganisationDetailRateLimit),
  rateLimitLayer(PasswordResetRateLimit),
  // The feature switches the contract gates groups on (spec "Tenant context" §5), one line each.
  featureGateLayer(ListingsFeature),
  featureGateLayer(VolunteeringFeature),
  featureGateLayer(EventsFeature),
  featureGateLayer(PollsFeature),
  featureGateLayer(MessagesFeature),
  featureGateLayer(ConnectionsFeature),
  featureGateLayer(GroupsFeature),
  featureGateLayer(FeedFeature),
  featureGateLayer(HelpFeature),
  featureGateLayer(BlogFeature),
  featureGateLayer(GamificationFeature),
  featureGateLayer(MatchingFeature),
  FederationMiddlewareLive
)

/** Every feature's handlers, with the middleware they declare. */
export const FeaturesLive = Layer.mergeAll(
  SystemHttpLive,
  AdminCacheHttpLive,
  DashboardLive,
  ActivityHttpLive,
  JobsHttpLive,
  TenancyHttpLive,
  IdentityHttpLive,
  TenancyAdminHttpLive.pipe(Layer.provide(FirstAdminAccountsLive)),
  AdminUsersLive,
  LedgerHttpLive,
  ListingsLive,
  MatchingLive,
  VolunteeringLive,
  PollsLive,
  MessagingLive,
  ConnectionsLive,
  ContentLive,
  ModerationLive,
  FunderReportsLive,
  GroupsLive,
  GroupsAdminLive.pipe(Layer.provide(GroupFeedActivityLive)),
  GroupModerationQueueLive,
  EventsLive,
  NotificationsLive,
  FeedLive,
  GamificationLive,
  FederationLive
).pipe(Layer.provideMerge(MiddlewareLive), Layer.provide(LedgerService.Default))

/** Every feature's named jobs, registered in the process's JobRegistry (decisions D17 "Jobs"), one line each. */
export const FeatureJobsLive = Layer.mergeAll(
  ReminderJobsLive,
  MailJobsLive,
  WebhookJobsLive,
  IdentityJobsLive,
  GamificationJobsLive
)

/** What a serving process runs on the cluster: entities, outbox subscribers and jobs (needs Sharding). */
export const ClusterFeaturesLive = Layer.mergeAll(
  FeatureJobsLive,
  // Moves money through the Ledger entity, so not among the jobs a CLI process (off the cluster) can run.
  OutboundTransferJobsLive,
  // The jobs' scheduler, one runner at a time (JOBS_SCHEDULER=off leaves it out).
  JobSchedulerLive,
  LedgerClusterLive,
  EventsClusterLive,
  NotificationsClusterLive,
  FeedClusterLive,
  GamificationClusterLive,
  FederationClusterLive
).pipe(
  Layer.provide(LedgerService.Default),
  Layer.provide(TenantRepo.Default)
)

/** The service's services that features and operators share. */
export const ServicesLive = Layer.mergeAll(
  TenantService.Default,
  TenantDirectory.Default,
  IdentityService.Default,
  UserRepo.Default,
  UserAccounts.Default,
  LedgerVerify.Default,
  // One per process: the dispatch publishes new bells here, and the channels that follow a bell read them.
  FreshBells.Default,
  // One per process, shared by the admin routes and the features they configure or run.
  TenantConfig.Default,
  RankingHealth.Default,
  JobRegistry.Default,
  // One per process: the registry of the caches (tenant resolution, switches, configuration) and their bus.
  TenantCaches.Default,
  // One per process: the offline gazetteer, or the HTTP geocoder when GEOCODER_URL is set (decisions D17).
  GeocoderLive
)

/**
 * The HTTP app of an HttpApi: docs, OpenAPI, raw routes, the edge and decode-error middleware, and the API's
 * handlers. Needs an HttpServer and the platform. Tests use it with contracts extended by probe groups.
 */
export const makeHttpLive = <R>(api: HttpApi.HttpApi.Any, apiLive: Layer.Layer<HttpApi.Api, never, R>) =>
  Layer.unwrapEffect(Effect.gen(function*() {
    const config = yield* AppConfig
    const routes = RouteTable.fromApi(api, [
      { method: "GET", path: FRAMEWORK_HEALTH_PATH },
      { method: "GET", path: REALTIME_PATH },
      { method: "GET", path: OPENAPI_PATH },
      { method: "GET", path: DOCS_PATH },
      { method: "GET", path: UPLOADS_ROUTE }
    ])
    return leanServe().pipe(
      // A server span per request only while telemetry exports (OTEL_EXPORTER_OTLP_ENDPOINT): otherwise it costs.
      HttpMiddleware.withTracerDisabledWhen(untracedRequests(config)),
      Layer.provide(httpEdge({ routes, maxBodyBytes: config.maxBodyBytes, dialects: FederationDialects })),
      Layer.provide(HttpApiSwagger.layer({ path: DOCS_PATH })),
      Layer.provide(HttpApiBuilder.middlewareOpenApi({ path: OPENAPI_PATH })),
      Layer.provide(RawRoutesLive),
      // The realtime WebSocket and the fibers that feed it (decisions D9, D12).
      Layer.provide(RealtimeLive),
      // Inside the edge (it reads the checked, cached body), around the decode errors: admin writes are audited.
      Layer.provide(auditTrail(routes)),
      Layer.provide(DecodeErrorsLive),
      Layer.provide(apiLive)
    )
  }))

/** The timebank HTTP API. */
export const HttpLive = makeHttpLive(Api, HttpApiBuilder.api(Api).pipe(Layer.provide(FeaturesLive)))
