import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { AlreadyExists, Forbidden, httpError, NotFound } from "../http/ApiError.js"
import { OffsetPageParams } from "../http/Cursor.js"
import { DataEnvelope, OffsetPage } from "../http/Envelope.js"
import { PathId } from "../http/Ids.js"
import { Authentication } from "../identity/Authentication.js"
import { Email, Password, PersonName, UserId } from "../identity/User.js"
import { TenantMiddleware } from "./TenancyApi.js"
import { CreateTenant, Features, TenantId, TenantSettings, TenantStatus, UpdateTenant } from "./Tenant.js"

/** The first admin of a new community, created with it. */
export const NewTenantAdmin = Schema.Struct({
  email: Email,
  password: Password,
  first_name: PersonName,
  last_name: PersonName
})
export type NewTenantAdmin = typeof NewTenantAdmin.Type

/** `POST /api/v2/admin/super/tenants` (decisions D3): the tenant's fields and its first admin. */
export const CreateTenantWithAdmin = Schema.Struct({ ...CreateTenant.fields, admin: NewTenantAdmin })
export type CreateTenantWithAdmin = typeof CreateTenantWithAdmin.Type

/** A community as platform super-admins see it: every field, features and settings with defaults applied. */
export class TenantDetails extends Schema.Class<TenantDetails>("TenantDetails")({
  id: TenantId,
  slug: Schema.String,
  name: Schema.String,
  domain: Schema.NullOr(Schema.String),
  status: TenantStatus,
  timezone: Schema.String,
  features: Features.annotations({ description: "Every known feature with its effective value" }),
  settings: Schema.typeSchema(TenantSettings),
  created_at: Schema.DateTimeUtc,
  updated_at: Schema.DateTimeUtc
}) {}

export class CreatedTenant extends Schema.Class<CreatedTenant>("CreatedTenant")({
  ...TenantDetails.fields,
  admin: Schema.Struct({ id: UserId, email: Schema.String })
}) {}

export const TenantIdPath = Schema.Struct({ id: PathId(TenantId) })

export const TenantListParams = OffsetPageParams

/** Creating, listing and changing communities: platform super-admins only (decisions D3). */
export class SuperTenantsApi extends HttpApiGroup.make("superTenants")
  .annotate(OpenApi.Title, "Super-admin: communities")
  .add(
    HttpApiEndpoint.post("create", "/api/v2/admin/super/tenants")
      .annotate(OpenApi.Summary, "Create a community")
      .setPayload(CreateTenantWithAdmin)
      .addSuccess(DataEnvelope(CreatedTenant), { status: 201 })
      .addError(httpError(Forbidden))
      .addError(httpError(AlreadyExists))
      .annotate(OpenApi.Description, "Creates a community and its first admin in one step")
  )
  .add(
    HttpApiEndpoint.get("list", "/api/v2/admin/super/tenants")
      .annotate(OpenApi.Summary, "List communities")
      .annotate(OpenApi.Description, "Every community by id, with its features and settings (defaults applied)")
      .setUrlParams(TenantListParams)
      .addSuccess(OffsetPage(TenantDetails))
      .addError(httpError(Forbidden))
  )
  .add(
    HttpApiEndpoint.get("get", "/api/v2/admin/super/tenants/:id")
      .annotate(OpenApi.Summary, "Get a community")
      .annotate(OpenApi.Description, "A community with every field, its features and settings (defaults applied)")
      .setPath(TenantIdPath)
      .addSuccess(DataEnvelope(TenantDetails))
      .addError(httpError(Forbidden))
      .addError(httpError(NotFound))
  )
  .add(
    HttpApiEndpoint.put("update", "/api/v2/admin/super/tenants/:id")
      .annotate(OpenApi.Summary, "Update a community")
      .setPath(TenantIdPath)
      .setPayload(UpdateTenant)
      .addSuccess(DataEnvelope(TenantDetails))
      .addError(httpError(Forbidden))
      .addError(httpError(NotFound))
      .addError(httpError(AlreadyExists))
      .annotate(
        OpenApi.Description,
        "Changes name, domain, status, timezone; features and settings are merged into what is stored"
      )
  )
  .middleware(Authentication)
  .middleware(TenantMiddleware)
  .annotate(OpenApi.Description, "Platform super-admins (logged in on the `platform` tenant)")
{}
