import { Context, Schema } from "effect"
import { RecordId } from "../http/Ids.js"

export const TenantId = RecordId.pipe(Schema.brand("TenantId"))
export type TenantId = typeof TenantId.Type

/** Feature switches a tenant admin can turn on and off, with their defaults (spec "Tenant context" §5). */
export const FeatureDefaults = {
  volunteering: true,
  organisations: true,
  events: true,
  listings: true,
  groups: true,
  messages: true,
  connections: true,
  feed: true,
  reviews: true,
  polls: true,
  blog: true,
  gamification: true,
  matching: true,
  help: true,
  federation: false
} as const
export type Feature = keyof typeof FeatureDefaults
export const Feature = Schema.Literal(...(Object.keys(FeatureDefaults) as Array<Feature>))

export const Features = Schema.Record({ key: Schema.String, value: Schema.Boolean })
export type Features = typeof Features.Type

/** Feature switches as an admin sends them: known names only, booleans only. */
export const FeaturesInput = Schema.partialWith(
  Schema.Struct(
    Object.fromEntries(Object.keys(FeatureDefaults).map((k) => [k, Schema.Boolean])) as {
      readonly [K in Feature]: typeof Schema.Boolean
    }
  ),
  { exact: true }
).annotations({ parseOptions: { onExcessProperty: "error" } })

/** Sub-capabilities switched inside a feature (decisions D17 "Modules"), with their defaults. */
export const ModuleDefaults = {
  reviews: true,
  reminders: true,
  recurring_events: true,
  org_wallets: true,
  digests: true,
  push: true
} as const
export type Module = keyof typeof ModuleDefaults
export const Module = Schema.Literal(...(Object.keys(ModuleDefaults) as Array<Module>))

/** Module switches as an admin sends them: known names only, booleans only. */
export const ModulesInput = Schema.partialWith(
  Schema.Struct(
    Object.fromEntries(Object.keys(ModuleDefaults).map((k) => [k, Schema.Boolean])) as {
      readonly [K in Module]: typeof Schema.Boolean
    }
  ),
  { exact: true }
).annotations({ parseOptions: { onExcessProperty: "error" } })

export const TenantStatus = Schema.Literal("active", "suspended")
export type TenantStatus = typeof TenantStatus.Type

const settingFields = {
  registration_requires_approval: Schema.Boolean,
  starting_balance: Schema.Number.pipe(Schema.nonNegative(), Schema.multipleOf(0.01)),
  allow_negative_balance: Schema.Boolean,
  listing_moderation: Schema.Boolean,
  waitlist_enabled: Schema.Boolean,
  waitlist_auto_promote: Schema.Boolean,
  default_language: Schema.Literal("en", "de", "fr", "es"),
  "notifications.default_frequency": Schema.Literal("instant", "daily", "monthly", "off"),
  group_approval_required: Schema.Boolean
}
const AllSettings = Schema.Struct(settingFields)

/** Defaults of every tenant setting (decisions D3). */
export const SettingDefaults: typeof AllSettings.Type = {
  registration_requires_approval: true,
  starting_balance: 0,
  allow_negative_balance: false,
  listing_moderation: false,
  waitlist_enabled: true,
  waitlist_auto_promote: true,
  default_language: "en",
  "notifications.default_frequency": "daily",
  group_approval_required: false
}

/** Some settings, as an admin sends them; unknown keys are refused. */
export const TenantSettingsInput = Schema.partialWith(AllSettings, { exact: true }).annotations({
  parseOptions: { onExcessProperty: "error" }
})

/** Settings as stored (sparse) on the encoded side, with every default applied on the type side. */
export const TenantSettings = Schema.transform(
  Schema.partialWith(AllSettings, { exact: true }),
  Schema.typeSchema(AllSettings),
  {
    strict: true,
    decode: (stored) => ({ ...SettingDefaults, ...stored }),
    encode: (settings) => settings
  }
)
export type TenantSettings = typeof TenantSettings.Type

/** Slugs name tenants in headers and subdomains: lowercase letters, digits and inner hyphens. */
export const TenantSlug = Schema.String.pipe(
  Schema.pattern(/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/, {
    message: () => "must be 1 to 63 lowercase letters, digits or inner hyphens"
  })
)

/** A community as the server sees it. `features` and `settings` already have their defaults applied. */
export class Tenant extends Schema.Class<Tenant>("Tenant")({
  id: TenantId,
  slug: Schema.String,
  name: Schema.String,
  domain: Schema.NullOr(Schema.String),
  status: TenantStatus,
  timezone: Schema.String,
  features: Features,
  modules: Features,
  settings: TenantSettings,
  created_at: Schema.DateTimeUtc,
  updated_at: Schema.DateTimeUtc
}) {
  isEnabled(feature: Feature): boolean {
    return this.features[feature] ?? FeatureDefaults[feature]
  }

  isModuleOn(module: Module): boolean {
    return this.modules[module] ?? ModuleDefaults[module]
  }

  /** Every known module with the tenant's switch or its default. */
  effectiveModules(): Record<Module, boolean> {
    return Object.fromEntries(
      (Object.keys(ModuleDefaults) as Array<Module>).map((m) => [m, this.isModuleOn(m)])
    ) as Record<Module, boolean>
  }

  /** Every known feature with the tenant's switch or its default. */
  effectiveFeatures(): Record<Feature, boolean> {
    return Object.fromEntries(
      (Object.keys(FeatureDefaults) as Array<Feature>).map((f) => [f, this.isEnabled(f)])
    ) as Record<Feature, boolean>
  }
}

/** What any caller may read about the tenant it is talking to. */
export class TenantPublic extends Schema.Class<TenantPublic>("TenantPublic")({
  id: TenantId,
  slug: Schema.String,
  name: Schema.String,
  timezone: Schema.String,
  default_language: Schema.String,
  features: Features
}) {}

const isTimeZone = (tz: string): boolean => {
  try {
    new Intl.DateTimeFormat("en", { timeZone: tz })
    return true
  } catch {
    return false
  }
}
export const TimeZone = Schema.String.pipe(
  Schema.filter(isTimeZone, {
    message: () => "must be an IANA time zone",
    description: "An IANA time zone, such as Europe/Berlin"
  })
)

export const DomainName = Schema.String.pipe(
  Schema.pattern(/^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i, {
    message: () => "must be a host name such as timebank.example.org"
  })
)

const TenantName = Schema.Trim.pipe(Schema.minLength(1), Schema.maxLength(200))

const exact = <S extends Schema.Schema.All>(schema: S) => Schema.optionalWith(schema, { exact: true })

/** Creating a tenant (decisions D3; CLI `tenant create` and the super-admin API). */
export const CreateTenant = Schema.Struct({
  slug: TenantSlug,
  name: TenantName,
  domain: exact(Schema.NullOr(DomainName)),
  timezone: exact(TimeZone),
  features: exact(FeaturesInput),
  settings: exact(TenantSettingsInput)
})
export type CreateTenant = typeof CreateTenant.Type

/** Changing a tenant: any subset of its fields; features and settings are merged into what is stored. */
export const UpdateTenant = Schema.Struct({
  name: exact(TenantName),
  domain: exact(Schema.NullOr(DomainName)),
  status: exact(TenantStatus),
  timezone: exact(TimeZone),
  features: exact(FeaturesInput),
  settings: exact(TenantSettingsInput)
})
export type UpdateTenant = typeof UpdateTenant.Type

/** The tenant resolved for the current request (spec "Tenant context"). */
export class CurrentTenant extends Context.Tag("CurrentTenant")<CurrentTenant, Tenant>() {}
