import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Forbidden, httpError, NotFound } from "../http/ApiError.js"
import { DataEnvelope } from "../http/Envelope.js"
import { PATH_PARAM_NOT_FOUND } from "../http/Ids.js"
import { Authentication } from "../identity/Authentication.js"
import {
  AiConfig,
  AlgorithmArea,
  AlgorithmsConfig,
  AlgorithmSetting,
  FeedAlgorithmConfig,
  ImagesConfig,
  LanguagesConfig,
  NativeAppConfig,
  SeoConfig
} from "./ConfigAreas.js"
import { TenantMiddleware } from "./TenancyApi.js"
import { Features } from "./Tenant.js"

/** Some keys of an area, as an admin sends them (a partial PUT): known keys only, each with its own type. */
const partialOf = <F extends Schema.Struct.Fields>(area: Schema.Struct<F>) =>
  Schema.partialWith(area, { exact: true }).annotations({ parseOptions: { onExcessProperty: "error" } })

export const AiConfigInput = partialOf(AiConfig)
export const FeedAlgorithmConfigInput = partialOf(FeedAlgorithmConfig)
export const ImagesConfigInput = partialOf(ImagesConfig)
export const SeoConfigInput = partialOf(SeoConfig)
export const LanguagesConfigInput = partialOf(LanguagesConfig)
export const NativeAppConfigInput = partialOf(NativeAppConfig)

/** `GET /api/v2/admin/config` (decisions D17): every switch and area of the community in one document. */
export const ConfigOverview = Schema.Struct({
  features: Features.annotations({ description: "Every known feature with its effective value" }),
  modules: Features.annotations({ description: "Every known module with its effective value" }),
  ai: AiConfig,
  feed_algorithm: FeedAlgorithmConfig,
  images: ImagesConfig,
  seo: SeoConfig,
  languages: LanguagesConfig,
  native_app: NativeAppConfig
})
export type ConfigOverview = typeof ConfigOverview.Type

/** `PUT /api/v2/admin/config/algorithm/{area}`: the algorithm, and weights when they change. */
export const AlgorithmSettingInput = Schema.Struct({
  algorithm: AlgorithmSetting.fields.algorithm,
  weights: Schema.optionalWith(AlgorithmSetting.fields.weights, { exact: true })
}).annotations({ parseOptions: { onExcessProperty: "error" } })
export type AlgorithmSettingInput = typeof AlgorithmSettingInput.Type

/** An area that is not one of ours names nothing: 404. */
export const AlgorithmAreaPath = Schema.Struct({
  area: AlgorithmArea.annotations({ message: () => ({ message: PATH_PARAM_NOT_FOUND, override: true }) })
})

/** One ranking area's latest run on the answering runner; `null` until the area has ranked something there. */
export const AlgorithmHealth = Schema.Struct({
  area: AlgorithmArea,
  algorithm: AlgorithmSetting.fields.algorithm,
  last_run_at: Schema.NullOr(Schema.String),
  latency_ms: Schema.NullOr(Schema.Number),
  runs: Schema.Int
})
export type AlgorithmHealth = typeof AlgorithmHealth.Type

const CONFIG = "/api/v2/admin/config"

/** `GET` and partial `PUT` of one stored area (decisions D17). */
const areaEndpoints = <N extends string, P extends string, S extends Schema.Schema.Any, I extends Schema.Schema.Any>(
  name: N,
  path: P,
  document: S,
  input: I,
  title: string
) =>
  [
    HttpApiEndpoint.get(name, `${CONFIG}/${path}`)
      .annotate(OpenApi.Summary, `Get the ${title} configuration`)
      .addSuccess(DataEnvelope(document))
      .addError(httpError(Forbidden))
      .annotate(OpenApi.Description, `The ${title} configuration of this community (defaults applied)`),
    HttpApiEndpoint.put(
      `update${name.charAt(0).toUpperCase()}${name.slice(1)}` as `update${Capitalize<N>}`,
      `${CONFIG}/${path}`
    )
      .annotate(OpenApi.Summary, `Update the ${title} configuration`)
      .setPayload(input)
      .addSuccess(DataEnvelope(document))
      .addError(httpError(Forbidden))
      .annotate(
        OpenApi.Description,
        `Merges the given keys over the ${title} configuration, validates the result whole and answers it`
      )
  ] as const

const ai = areaEndpoints("ai", "ai", AiConfig, AiConfigInput, "AI")
const feed = areaEndpoints("feedAlgorithm", "feed-algorithm", FeedAlgorithmConfig, FeedAlgorithmConfigInput, "feed")
const images = areaEndpoints("images", "images", ImagesConfig, ImagesConfigInput, "image upload")
const seo = areaEndpoints("seo", "seo", SeoConfig, SeoConfigInput, "SEO")
const languages = areaEndpoints("languages", "languages", LanguagesConfig, LanguagesConfigInput, "language")
const nativeApp = areaEndpoints("nativeApp", "native-app", NativeAppConfig, NativeAppConfigInput, "native app")

/** A community's configuration areas and ranking algorithms: tenant admins and platform super-admins. */
export class AdminConfigAreasApi extends HttpApiGroup.make("adminConfigAreas")
  .annotate(OpenApi.Title, "Admin: configuration areas")
  .annotate(
    OpenApi.Description,
    "A community's configuration documents (AI, feed, images, SEO, languages, native app) and ranking algorithms"
  )
  .add(
    HttpApiEndpoint.get("config", CONFIG)
      .annotate(OpenApi.Summary, "Get the whole configuration")
      .addSuccess(DataEnvelope(ConfigOverview))
      .addError(httpError(Forbidden))
      .annotate(OpenApi.Description, "Features, modules and every configuration area in one document")
  )
  .add(ai[0])
  .add(ai[1])
  .add(feed[0])
  .add(feed[1])
  .add(images[0])
  .add(images[1])
  .add(seo[0])
  .add(seo[1])
  .add(languages[0])
  .add(languages[1])
  .add(nativeApp[0])
  .add(nativeApp[1])
  .add(
    HttpApiEndpoint.get("algorithms", `${CONFIG}/algorithms`)
      .annotate(OpenApi.Summary, "Get the ranking algorithms")
      .addSuccess(DataEnvelope(AlgorithmsConfig))
      .addError(httpError(Forbidden))
      .annotate(
        OpenApi.Description,
        "The algorithm and weights of each ranking area: feed, listings, members, matching"
      )
  )
  .add(
    HttpApiEndpoint.put("setAlgorithm", `${CONFIG}/algorithm/:area`)
      .annotate(OpenApi.Summary, "Set a ranking algorithm")
      .setPath(AlgorithmAreaPath)
      .setPayload(AlgorithmSettingInput)
      .addSuccess(DataEnvelope(AlgorithmSetting))
      .addError(httpError(Forbidden))
      .addError(httpError(NotFound))
      .annotate(
        OpenApi.Description,
        "Sets one area's algorithm, and its weights when given; answers the area's setting"
      )
  )
  .add(
    HttpApiEndpoint.get("algorithmHealth", `${CONFIG}/algorithm-health`)
      .annotate(OpenApi.Summary, "Get the ranking areas' health")
      .addSuccess(DataEnvelope(Schema.Array(AlgorithmHealth)))
      .addError(httpError(Forbidden))
      .annotate(
        OpenApi.Description,
        "Per ranking area its algorithm, its last run on the answering runner, that run's latency and the run count"
      )
  )
  .middleware(Authentication)
  .middleware(TenantMiddleware)
{}
