import { Schema } from "effect"
import { Language } from "../identity/User.js"
import { SOCIAL_VALUE_DEFAULTS, SocialValueConfig } from "../reports/SocialValue.js"

/**
 * The configuration areas of a community (decisions D17 "Config"): one Schema-validated document each, stored per
 * tenant, absent = the defaults below. Each area is strict (unknown keys are refused) and every PUT is partial:
 * the given keys are merged over the stored document and the result validated whole.
 */

const strict = { parseOptions: { onExcessProperty: "error" as const } }

const HttpsUrl = Schema.Trim.pipe(
  Schema.maxLength(2000),
  Schema.filter((s) => {
    try {
      const url = new URL(s)
      return url.protocol === "https:" || url.protocol === "http:"
    } catch {
      return false
    }
  }, { message: () => "must be an http(s) URL" })
)

const Weight = Schema.Number.pipe(Schema.finite(), Schema.between(0, 10))

export const AiConfig = Schema.Struct({
  enabled: Schema.Boolean,
  provider: Schema.Literal("none", "openai_compatible"),
  base_url: Schema.NullOr(HttpsUrl),
  model: Schema.NullOr(Schema.Trim.pipe(Schema.minLength(1), Schema.maxLength(200)))
}).annotations(strict)
export type AiConfig = typeof AiConfig.Type

export const FeedAlgorithmConfig = Schema.Struct({
  recency_weight: Weight,
  engagement_weight: Weight,
  connection_weight: Weight
}).annotations(strict)
export type FeedAlgorithmConfig = typeof FeedAlgorithmConfig.Type

/** The image types uploads may take (what the file store can serve). */
export const ImageType = Schema.Literal("image/jpeg", "image/png", "image/webp")
export type ImageType = typeof ImageType.Type

export const ImagesConfig = Schema.Struct({
  max_upload_mb: Schema.Int.pipe(Schema.between(1, 20)),
  allowed_types: Schema.Array(ImageType).pipe(Schema.minItems(1), Schema.maxItems(3))
}).annotations(strict)
export type ImagesConfig = typeof ImagesConfig.Type

export const SeoConfig = Schema.Struct({
  title: Schema.NullOr(Schema.Trim.pipe(Schema.maxLength(120))),
  description: Schema.NullOr(Schema.Trim.pipe(Schema.maxLength(500))),
  indexable: Schema.Boolean
}).annotations(strict)
export type SeoConfig = typeof SeoConfig.Type

/** `default` is the D3 setting `default_language` (the notifications' fallback): one value, two ways to set it. */
export const LanguagesConfig = Schema.Struct({
  default: Language,
  enabled: Schema.Array(Language).pipe(Schema.minItems(1), Schema.maxItems(4))
}).annotations(strict)
export type LanguagesConfig = typeof LanguagesConfig.Type

const AppVersion = Schema.Trim.pipe(Schema.pattern(/^\d{1,4}(\.\d{1,4}){0,3}$/, {
  message: () => "must be a version such as 2.4.1"
}))

export const NativeAppConfig = Schema.Struct({
  ios_url: Schema.NullOr(HttpsUrl),
  android_url: Schema.NullOr(HttpsUrl),
  min_version: Schema.NullOr(AppVersion),
  force_update: Schema.Boolean
}).annotations(strict)
export type NativeAppConfig = typeof NativeAppConfig.Type

/** The ranking areas we have (D17 `/config/algorithms`). */
export const AlgorithmArea = Schema.Literal("feed", "listings", "members", "matching")
export type AlgorithmArea = typeof AlgorithmArea.Type

export const AlgorithmSetting = Schema.Struct({
  algorithm: Schema.Literal("recency", "relevance", "hybrid"),
  weights: Schema.Record({ key: Schema.String.pipe(Schema.pattern(/^[a-z_]{1,40}$/)), value: Weight }).pipe(
    Schema.filter((w) => Object.keys(w).length <= 10 || "must have at most 10 weights")
  )
}).annotations(strict)
export type AlgorithmSetting = typeof AlgorithmSetting.Type

export const AlgorithmsConfig = Schema.Struct({
  feed: AlgorithmSetting,
  listings: AlgorithmSetting,
  members: AlgorithmSetting,
  matching: AlgorithmSetting
}).annotations(strict)
export type AlgorithmsConfig = typeof AlgorithmsConfig.Type

/** Every stored area with its schema and defaults; the key is the area's name in storage and in `GET /config`. */
export const ConfigAreas = {
  ai: {
    schema: AiConfig,
    defaults: { enabled: false, provider: "none", base_url: null, model: null } as AiConfig
  },
  feed_algorithm: {
    schema: FeedAlgorithmConfig,
    // Recency alone is the order the feed had before it was configurable.
    defaults: { recency_weight: 10, engagement_weight: 0, connection_weight: 0 } as FeedAlgorithmConfig
  },
  images: {
    schema: ImagesConfig,
    defaults: { max_upload_mb: 5, allowed_types: ["image/jpeg", "image/png", "image/webp"] } as ImagesConfig
  },
  seo: {
    schema: SeoConfig,
    defaults: { title: null, description: null, indexable: true } as SeoConfig
  },
  languages: {
    schema: LanguagesConfig,
    // `default` is read from and written to the D3 setting `default_language`; only `enabled` is stored here.
    defaults: { default: "en", enabled: ["en", "de", "fr", "es"] } as LanguagesConfig
  },
  native_app: {
    schema: NativeAppConfig,
    defaults: { ios_url: null, android_url: null, min_version: null, force_update: false } as NativeAppConfig
  },
  algorithms: {
    schema: AlgorithmsConfig,
    defaults: {
      feed: { algorithm: "recency", weights: {} },
      listings: { algorithm: "recency", weights: {} },
      members: { algorithm: "recency", weights: {} },
      matching: { algorithm: "relevance", weights: {} }
    } as AlgorithmsConfig
  },
  social_value: { schema: SocialValueConfig, defaults: SOCIAL_VALUE_DEFAULTS }
} as const
export type ConfigArea = keyof typeof ConfigAreas
export type ConfigDocument<A extends ConfigArea> = typeof ConfigAreas[A]["schema"]["Type"]
