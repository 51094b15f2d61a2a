import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { AlreadyExists, Forbidden, httpError, NotFound } from "../http/ApiError.js"
import { DataEnvelope } from "../http/Envelope.js"
import { Authentication } from "../identity/Authentication.js"
import { TenantMiddleware } from "../tenancy/TenancyApi.js"
import { AttributeDeleted, AttributeIdPath, CreateAttribute, ListingAttribute, UpdateAttribute } from "./Attribute.js"

/** The listing attributes of the community, for anyone who builds a listing form. */
export class AttributesApi extends HttpApiGroup.make("attributes")
  .annotate(OpenApi.Title, "Listing attributes")
  .annotate(OpenApi.Description, "The extra fields a listing form offers (text, number, yes/no, choice); for anyone")
  .add(
    HttpApiEndpoint.get("list", "/api/v2/attributes")
      .annotate(OpenApi.Summary, "List listing attributes")
      .addSuccess(DataEnvelope(Schema.Array(ListingAttribute)))
      .annotate(OpenApi.Description, "Listing attributes by name; listings carry values keyed by attribute id")
  )
  .middleware(TenantMiddleware)
{}

const ATTRIBUTES = "/api/v2/admin/attributes"

/** Community admins define listing attributes. */
export class AdminAttributesApi extends HttpApiGroup.make("adminAttributes")
  .annotate(OpenApi.Title, "Admin: listing attributes")
  .annotate(OpenApi.Description, "Community admins define listing attributes")
  .add(
    HttpApiEndpoint.get("list", ATTRIBUTES)
      .annotate(OpenApi.Summary, "List listing attributes (admin)")
      .annotate(OpenApi.Description, "Every listing attribute of the community by name")
      .addSuccess(DataEnvelope(Schema.Array(ListingAttribute)))
  )
  .add(
    HttpApiEndpoint.post("create", ATTRIBUTES)
      .annotate(OpenApi.Summary, "Create a listing attribute")
      .setPayload(CreateAttribute)
      .addSuccess(DataEnvelope(ListingAttribute), { status: 201 })
      .addError(httpError(AlreadyExists))
      .annotate(OpenApi.Description, "A name is unique in the community, in any case (409 ALREADY_EXISTS on `name`)")
  )
  .add(
    HttpApiEndpoint.put("update", `${ATTRIBUTES}/:id`)
      .annotate(OpenApi.Summary, "Update a listing attribute")
      .setPath(AttributeIdPath)
      .setPayload(UpdateAttribute)
      .addSuccess(DataEnvelope(ListingAttribute))
      .addError(httpError(NotFound))
      .addError(httpError(AlreadyExists))
      .annotate(
        OpenApi.Description,
        "A new type drops every listing's value of the attribute; new options drop the values no longer allowed"
      )
  )
  .add(
    HttpApiEndpoint.del("delete", `${ATTRIBUTES}/:id`)
      .annotate(OpenApi.Summary, "Delete a listing attribute")
      .setPath(AttributeIdPath)
      .addSuccess(DataEnvelope(AttributeDeleted))
      .addError(httpError(NotFound))
      .annotate(OpenApi.Description, "Also removes the attribute's values from every listing")
  )
  .addError(httpError(Forbidden))
  .middleware(Authentication)
  .middleware(TenantMiddleware)
{}
