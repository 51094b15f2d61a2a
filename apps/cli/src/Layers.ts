import {
  AdminUsersService,
  ApiKeysService,
  AppConfig,
  CorePlatformLive,
  DeliveriesService,
  FeatureJobsLive,
  FirstAdminAccountsLive,
  FunderReportsService,
  JobsOperator,
  PartnersService,
  ReportExports,
  ServicesLive,
  SqlLive,
  SuperTenantsService
} from "@timebank/server"
import { Layer } from "effect"

/**
 * What commands run on, by what they need. Only `migrate` needs the database unmigrated: the platform migrates while
 * it starts. With DATABASE_URL unset, a command shares the embedded PostgreSQL of DATA_DIR (EmbeddedPostgresRole's
 * default): the one a running `npm start` serves (its URL is in DATA_DIR/database-url), else one it starts for
 * itself and stops when done. None of them joins the cluster.
 */
const DatabaseOnly = SqlLive.pipe(Layer.provide(AppConfig.Default))

/** The migrated platform (SQL included, for the seed's set-based writes) and the shared services. */
const Platform = ServicesLive.pipe(Layer.provideMerge(CorePlatformLive))

/** The shared services and the admin services that operators use as a platform super-admin would. */
const Services = Layer.mergeAll(
  SuperTenantsService.Default.pipe(Layer.provide(FirstAdminAccountsLive)),
  AdminUsersService.Default,
  FunderReportsService.Default,
  ReportExports.Default
).pipe(Layer.provideMerge(Platform))

// Federation's services need the secrets key (SecretBox, made in DATA_DIR when unset); one that cannot be read stops
// the command. A retried delivery goes out over node:http from this process.
const Federation = Layer.orDie(
  Layer.mergeAll(ApiKeysService.Default, PartnersService.Default, DeliveriesService.Default)
)
  .pipe(Layer.provideMerge(Platform))

// Every feature's jobs, registered in this process's registry, and their runner (no cluster: runs happen here).
const Jobs = Layer.merge(JobsOperator.Default, FeatureJobsLive).pipe(Layer.provideMerge(Platform))

export const CommandLayers = {
  database: DatabaseOnly,
  services: Services,
  federation: Federation,
  jobs: Jobs
} as const

/** What a command of each kind may use; `none` runs without a database (key generation and the like). */
export interface Needs {
  readonly database: Layer.Layer.Success<typeof DatabaseOnly>
  readonly services: Layer.Layer.Success<typeof Services>
  readonly federation: Layer.Layer.Success<typeof Federation>
  readonly jobs: Layer.Layer.Success<typeof Jobs>
  readonly none: never
}
