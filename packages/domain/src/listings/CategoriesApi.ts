import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { AlreadyExists, Forbidden, httpError, NotFound } from "../http/ApiError.js"
import { DataEnvelope } from "../http/Envelope.js"
import { Authentication } from "../identity/Authentication.js"
import { TenantMiddleware } from "../tenancy/TenancyApi.js"
import {
  Category,
  CategoryDeleted,
  CategoryIdPath,
  CategoryListParams,
  CreateCategory,
  UpdateCategory
} from "./Category.js"

/** The community's categories, for anyone (decisions D6). */
export class CategoriesApi extends HttpApiGroup.make("categories")
  .annotate(OpenApi.Title, "Categories")
  .annotate(OpenApi.Description, "The community's categories of listings, events and more; for anyone")
  .add(
    HttpApiEndpoint.get("list", "/api/v2/categories")
      .annotate(OpenApi.Summary, "List categories")
      .setUrlParams(CategoryListParams)
      .addSuccess(DataEnvelope(Schema.Array(Category)))
      .annotate(OpenApi.Description, "Categories by name; `type` narrows to one kind")
  )
  .middleware(TenantMiddleware)
{}

const CATEGORIES = "/api/v2/admin/categories"

/** Community admins manage categories (decisions D6). */
export class AdminCategoriesApi extends HttpApiGroup.make("adminCategories")
  .annotate(OpenApi.Title, "Admin: categories")
  .annotate(OpenApi.Description, "Community admins manage categories")
  .add(
    HttpApiEndpoint.get("list", CATEGORIES)
      .annotate(OpenApi.Summary, "List categories (admin)")
      .annotate(OpenApi.Description, "Every category of the community by name; `type` narrows to one kind")
      .setUrlParams(CategoryListParams)
      .addSuccess(DataEnvelope(Schema.Array(Category)))
  )
  .add(
    HttpApiEndpoint.post("create", CATEGORIES)
      .annotate(OpenApi.Summary, "Create a category")
      .setPayload(CreateCategory)
      .addSuccess(DataEnvelope(Category), { status: 201 })
      .addError(httpError(AlreadyExists))
      .annotate(OpenApi.Description, "A name is unique per type, in any case (409 ALREADY_EXISTS on `name`)")
  )
  .add(
    HttpApiEndpoint.put("update", `${CATEGORIES}/:id`)
      .annotate(OpenApi.Summary, "Update a category")
      .setPath(CategoryIdPath)
      .setPayload(UpdateCategory)
      .addSuccess(DataEnvelope(Category))
      .addError(httpError(NotFound))
      .addError(httpError(AlreadyExists))
      .annotate(
        OpenApi.Description,
        "A new name gives a new slug; a type other than `listing` unassigns the listings that had the category"
      )
  )
  .add(
    HttpApiEndpoint.del("delete", `${CATEGORIES}/:id`)
      .annotate(OpenApi.Summary, "Delete a category")
      .setPath(CategoryIdPath)
      .addSuccess(DataEnvelope(CategoryDeleted))
      .addError(httpError(NotFound))
      .annotate(OpenApi.Description, "Listings that had the category keep existing without one")
  )
  .addError(httpError(Forbidden))
  .middleware(Authentication)
  .middleware(TenantMiddleware)
{}
