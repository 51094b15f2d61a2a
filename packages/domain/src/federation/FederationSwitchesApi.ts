import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Forbidden, httpError, NotFound } from "../http/ApiError.js"
import { DataEnvelope } from "../http/Envelope.js"
import { Authentication } from "../identity/Authentication.js"
import { TenantIdPath } from "../tenancy/SuperTenantsApi.js"
import { TenantMiddleware } from "../tenancy/TenancyApi.js"
import { TenantId } from "../tenancy/Tenant.js"
import { CurrencyCode } from "./FederationAccountsApi.js"
import { CurrencyCodeTaken } from "./FederationErrors.js"

/** The platform's federation switch (decisions D13a): `false`, the default, is federation off everywhere. */
export const PlatformFederation = Schema.Struct({
  enabled: Schema.Boolean.annotations({ description: "Federation on for the platform (the kill switch off)" })
})
export type PlatformFederation = typeof PlatformFederation.Type

export const SetTenantWhitelist = Schema.Struct({ whitelisted: Schema.Boolean })
export type SetTenantWhitelist = typeof SetTenantWhitelist.Type

const toggle = (what: string) => Schema.Boolean.annotations({ description: `Partners may use ${what} (default false)` })

/** A community's eight per-feature toggles (decisions D13), every one present. */
export const FederationSettings = Schema.Struct({
  profiles: toggle("members' profiles"),
  messaging: toggle("messages to members"),
  transactions: toggle("transfers to members"),
  listings: toggle("listings"),
  events: toggle("events"),
  groups: toggle("groups"),
  reviews: toggle("reviews"),
  volunteering: toggle("volunteering opportunities")
})
export type FederationSettings = typeof FederationSettings.Type

/**
 * Some toggles and the currency code, as a tenant admin sends them: known keys only, booleans only; the others keep
 * their values. `currency_code` null goes back to the default code.
 */
const optionalToggle = Schema.optionalWith(Schema.Boolean, { exact: true })

export const FederationSettingsInput = Schema.Struct({
  profiles: optionalToggle,
  messaging: optionalToggle,
  transactions: optionalToggle,
  listings: optionalToggle,
  events: optionalToggle,
  groups: optionalToggle,
  reviews: optionalToggle,
  volunteering: optionalToggle,
  currency_code: Schema.optionalWith(Schema.NullOr(CurrencyCode), { exact: true })
}).annotations({
  parseOptions: { onExcessProperty: "error" }
})
export type FederationSettingsInput = typeof FederationSettingsInput.Type

/** The switches above a community's toggles, which only platform super-admins change. */
export const FederationSettingsMeta = Schema.Struct({
  platform_enabled: Schema.Boolean.annotations({ description: "The platform switch (`federation_enabled`)" }),
  whitelisted: Schema.Boolean.annotations({ description: "Whether platform super-admins whitelisted this community" })
})
export type FederationSettingsMeta = typeof FederationSettingsMeta.Type

/** The eight toggles and the community's currency code (decisions D16). */
export const FederationSettingsView = Schema.Struct({
  ...FederationSettings.fields,
  currency_code: Schema.String.annotations({
    description: "The community's currency code towards partners; by default its id in base 36, 0-padded to 4"
  })
})

/** `{"data": <the eight toggles and currency_code>, "meta": {"platform_enabled", "whitelisted"}}`. */
export const FederationSettingsEnvelope = Schema.Struct({ data: FederationSettingsView, meta: FederationSettingsMeta })

/** One community's federation switches, as platform super-admins see them. */
export const TenantFederationView = Schema.Struct({
  tenant_id: TenantId,
  whitelisted: Schema.Boolean,
  toggles: FederationSettings.annotations({ description: "The community admins' toggles (read-only here)" })
})
export type TenantFederationView = typeof TenantFederationView.Type

const SUPER = "/api/v2/admin/super/federation"

/** The platform switch and the community whitelist: platform super-admins only (decisions D13). */
export class SuperFederationApi extends HttpApiGroup.make("superFederation")
  .annotate(OpenApi.Title, "Super-admin: federation")
  .annotate(
    OpenApi.Description,
    "The platform's federation switch and the community whitelist: platform super-admins (logged in on the " +
      "`platform` tenant). These routes work whatever the switches say."
  )
  .add(
    HttpApiEndpoint.get("platform", SUPER)
      .annotate(OpenApi.Summary, "Get the platform federation switch")
      .annotate(OpenApi.Description, "Whether federation is on for the platform")
      .addSuccess(DataEnvelope(PlatformFederation))
  )
  .add(
    HttpApiEndpoint.put("setPlatform", SUPER)
      .annotate(OpenApi.Summary, "Set the platform federation switch")
      .annotate(OpenApi.Description, "Turns federation on or off for every community; every runner follows within 5 s")
      .setPayload(PlatformFederation)
      .addSuccess(DataEnvelope(PlatformFederation))
  )
  .add(
    HttpApiEndpoint.get("tenant", `${SUPER}/tenants/:id`)
      .annotate(OpenApi.Summary, "Get a community's federation switches")
      .annotate(OpenApi.Description, "Whether the community is whitelisted, and its admins' toggles")
      .setPath(TenantIdPath)
      .addSuccess(DataEnvelope(TenantFederationView))
      .addError(httpError(NotFound))
  )
  .add(
    HttpApiEndpoint.put("setTenant", `${SUPER}/tenants/:id`)
      .annotate(OpenApi.Summary, "Whitelist a community for federation")
      .annotate(OpenApi.Description, "Adds the community to the federation whitelist or removes it")
      .setPath(TenantIdPath)
      .setPayload(SetTenantWhitelist)
      .addSuccess(DataEnvelope(TenantFederationView))
      .addError(httpError(NotFound))
  )
  .addError(httpError(Forbidden))
  .middleware(Authentication)
  .middleware(TenantMiddleware)
{}

const SETTINGS = "/api/v2/admin/federation/settings"

/** A community's own federation toggles: tenant admins and platform super-admins (decisions D13). */
export class AdminFederationSettingsApi extends HttpApiGroup.make("adminFederationSettings")
  .annotate(OpenApi.Title, "Admin: federation settings")
  .annotate(
    OpenApi.Description,
    "Which features partners may use in this community: tenant admins and platform super-admins. These routes " +
      "work whatever the switches say."
  )
  .add(
    HttpApiEndpoint.get("get", SETTINGS)
      .annotate(OpenApi.Summary, "Get the federation settings")
      .annotate(
        OpenApi.Description,
        "The eight toggles; `meta` tells whether the platform switch is on and the community whitelisted"
      )
      .addSuccess(FederationSettingsEnvelope)
  )
  .add(
    HttpApiEndpoint.put("update", SETTINGS)
      .annotate(OpenApi.Summary, "Update the federation settings")
      .annotate(
        OpenApi.Description,
        "Changes the toggles sent (booleans); the others keep their values. `currency_code` sets the code partners " +
          "address this community by (`^[A-Z][A-Z0-9]{3}$`; taken by another community → 409 " +
          "`CURRENCY_CODE_TAKEN`; null → the default)"
      )
      .setPayload(FederationSettingsInput)
      .addSuccess(FederationSettingsEnvelope)
      .addError(httpError(CurrencyCodeTaken))
  )
  .addError(httpError(Forbidden))
  .middleware(Authentication)
  .middleware(TenantMiddleware)
{}
