import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Forbidden, httpError } from "../http/ApiError.js"
import { DataEnvelope } from "../http/Envelope.js"
import { Authentication } from "../identity/Authentication.js"
import { TenantMiddleware } from "./TenancyApi.js"
import { Feature, TenantSettings, TenantSettingsInput, TimeZone } from "./Tenant.js"

/** `PUT /api/v2/admin/config/features` (decisions D3): one switch at a time. */
export const FeatureSwitch = Schema.Struct({ feature: Feature, enabled: Schema.Boolean })
export type FeatureSwitch = typeof FeatureSwitch.Type

/** Every setting of decisions D3 with its effective value; `timezone` is the tenant's own time zone. */
export const AdminSettings = Schema.extend(
  Schema.typeSchema(TenantSettings),
  Schema.Struct({ timezone: Schema.String })
)
export type AdminSettings = typeof AdminSettings.Type

/** Some settings, as an admin sends them: known keys only, each with its own type. */
export const AdminSettingsInput = Schema.extend(
  TenantSettingsInput,
  Schema.Struct({ timezone: Schema.optionalWith(TimeZone, { exact: true }) })
).annotations({ parseOptions: { onExcessProperty: "error" } })
export type AdminSettingsInput = typeof AdminSettingsInput.Type

/** A community's own configuration: tenant admins (role `admin`) and platform super-admins. */
export class AdminConfigApi extends HttpApiGroup.make("adminConfig")
  .annotate(OpenApi.Title, "Admin: configuration")
  .annotate(
    OpenApi.Description,
    "A community's own feature switches and settings: tenant admins and platform super-admins"
  )
  .add(
    HttpApiEndpoint.put("setFeature", "/api/v2/admin/config/features")
      .annotate(OpenApi.Summary, "Switch a feature")
      .setPayload(FeatureSwitch)
      .addSuccess(DataEnvelope(FeatureSwitch))
      .addError(httpError(Forbidden))
      .annotate(OpenApi.Description, "Turns one feature of this community on or off")
  )
  .add(
    HttpApiEndpoint.get("settings", "/api/v2/admin/settings")
      .annotate(OpenApi.Summary, "Get the settings")
      .addSuccess(DataEnvelope(AdminSettings))
      .addError(httpError(Forbidden))
      .annotate(OpenApi.Description, "Every setting with its effective value (defaults applied)")
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
