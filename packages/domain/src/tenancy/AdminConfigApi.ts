import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Predicate, Schema, SchemaAST } from "effect"
import { Forbidden, httpError } from "../http/ApiError.js"
import { DataEnvelope } from "../http/Envelope.js"
import { Authentication } from "../identity/Authentication.js"
import { TenantMiddleware } from "./TenancyApi.js"
import {
  Feature,
  FeatureDefaults,
  FeaturesInput,
  ModuleDefaults,
  ModulesInput,
  TenantSettings,
  TenantSettingsInput,
  TimeZone
} from "./Tenant.js"

const strict = { parseOptions: { onExcessProperty: "error" as const } }

/** `PUT /api/v2/admin/config/features` (decisions D3): one switch at a time. */
export const FeatureSwitch = Schema.Struct({ feature: Feature, enabled: Schema.Boolean })
export type FeatureSwitch = typeof FeatureSwitch.Type

/** Whether a body is meant as one switch (D3): it names `feature` or `enabled`, which no feature is called. */
const isSwitchShaped = (u: unknown): boolean => Predicate.isRecord(u) && ("feature" in u || "enabled" in u)

/**
 * One member of a union that only applies to bodies of its shape. Its guard fails without a field, so a body of
 * the other shape is reported by the other member's problems alone (the envelope drops a whole-body entry beside
 * field entries); the documentation shows the member's own schema.
 */
const shaped = <A, I>(applies: (u: unknown) => boolean, schema: Schema.Schema<A, I>, shape: string) =>
  Schema.compose(
    Schema.Unknown.pipe(Schema.filter(applies, { message: () => `must be ${shape}` })),
    schema,
    { strict: false }
  ).annotations({ [SchemaAST.SurrogateAnnotationId]: schema.ast })

/**
 * `PUT /api/v2/admin/config/features` takes either shape: D3's single switch `{feature, enabled}`, or D17's partial
 * map `{"listings": false, "events": true}` (known feature names, booleans). A body naming `feature` or `enabled` is
 * the switch; any other object is the map.
 */
export const FeaturesPayload = Schema.Union(
  shaped(isSwitchShaped, FeatureSwitch.annotations(strict), "{feature, enabled}"),
  shaped((u) => Predicate.isRecord(u) && !isSwitchShaped(u), FeaturesInput, "a map of feature switches")
)
export type FeaturesPayload = typeof FeaturesPayload.Type

/** Every feature with its effective switch. */
export const EffectiveFeatures = Schema.Struct(
  Object.fromEntries(Object.keys(FeatureDefaults).map((k) => [k, Schema.Boolean])) as {
    readonly [K in keyof typeof FeatureDefaults]: typeof Schema.Boolean
  }
)
export type EffectiveFeatures = typeof EffectiveFeatures.Type

/** Every module with its effective switch. */
export const EffectiveModules = Schema.Struct(
  Object.fromEntries(Object.keys(ModuleDefaults).map((k) => [k, Schema.Boolean])) as {
    readonly [K in keyof typeof ModuleDefaults]: typeof Schema.Boolean
  }
)
export type EffectiveModules = typeof EffectiveModules.Type

/** The community's name as admins set it. */
const CommunityName = Schema.Trim.pipe(Schema.minLength(1), Schema.maxLength(200))

/** Every setting of decisions D3 with its effective value; `timezone` and `name` are the tenant's own. */
export const AdminSettings = Schema.extend(
  Schema.typeSchema(TenantSettings),
  Schema.Struct({ name: Schema.String, timezone: Schema.String })
)
export type AdminSettings = typeof AdminSettings.Type

/** Some settings, as an admin sends them: known keys only, each with its own type. */
export const AdminSettingsInput = Schema.extend(
  TenantSettingsInput,
  Schema.Struct({
    name: Schema.optionalWith(CommunityName, { exact: true }),
    timezone: Schema.optionalWith(TimeZone, { exact: true })
  })
).annotations(strict)
export type AdminSettingsInput = typeof AdminSettingsInput.Type

/** A community's own configuration: tenant admins (role `admin`) and platform super-admins. */
export class AdminConfigApi extends HttpApiGroup.make("adminConfig")
  .annotate(OpenApi.Title, "Admin: configuration")
  .annotate(
    OpenApi.Description,
    "A community's own feature switches, modules and settings: tenant admins and platform super-admins"
  )
  .add(
    HttpApiEndpoint.put("setFeature", "/api/v2/admin/config/features")
      .annotate(OpenApi.Summary, "Switch features")
      .setPayload(FeaturesPayload)
      .addSuccess(DataEnvelope(Schema.Union(FeatureSwitch, EffectiveFeatures)))
      .addError(httpError(Forbidden))
      .annotate(
        OpenApi.Description,
        "Turns features of this community on or off, at once on every route they gate. `{feature, enabled}` " +
          "switches one and answers it; a map `{\"listings\": false, …}` switches those given and answers every " +
          "feature with its switch"
      )
  )
  .add(
    HttpApiEndpoint.put("setModules", "/api/v2/admin/config/modules")
      .annotate(OpenApi.Summary, "Switch modules")
      .setPayload(ModulesInput)
      .addSuccess(DataEnvelope(EffectiveModules))
      .addError(httpError(Forbidden))
      .annotate(
        OpenApi.Description,
        "Turns sub-capabilities on or off (`reviews`, `reminders`, `recurring_events`, `org_wallets`, `digests`, " +
          "`push`); the others keep their switch. Answers every module with its switch"
      )
  )
  .add(
    HttpApiEndpoint.get("settings", "/api/v2/admin/settings")
      .annotate(OpenApi.Summary, "Get the settings")
      .addSuccess(DataEnvelope(AdminSettings))
      .addError(httpError(Forbidden))
      .annotate(OpenApi.Description, "Every setting with its effective value (defaults applied), and the name")
  )
  .add(
    HttpApiEndpoint.put("updateSettings", "/api/v2/admin/settings")
      .annotate(OpenApi.Summary, "Update the settings")
      .setPayload(AdminSettingsInput)
      .addSuccess(DataEnvelope(AdminSettings))
      .addError(httpError(Forbidden))
      .annotate(OpenApi.Description, "Changes the given settings; the others keep their values")
  )
  .middleware(Authentication)
  .middleware(TenantMiddleware)
{}
