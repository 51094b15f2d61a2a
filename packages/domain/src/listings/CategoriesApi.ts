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
  .add(
    HttpApiEndpoint.get("list", "/api/v2/categories")
      .setUrlParams(CategoryListParams)
      .addSuccess(DataEnvelope(Schema.Array(Category)))
      .annotate(OpenApi.Description, "Categories by name; `type` narrows to one kind")
  )
  .middleware(TenantMiddleware)
{}

const CATEGORIES = "/api/v2/admin/categories"

/** Community admins manage categories (decisions D6). */
export class AdminCategoriesApi extends HttpApiGroup.make("adminCategories")
  .add(
    HttpApiEndpoint.get("list", CATEGORIES)
      .setUrlParams(CategoryListParams)
      .addSuccess(DataEnvelope(Schema.Array(Category)))
  )
  .add(
    HttpApiEndpoint.post("create", CATEGORIES)
      .setPayload(CreateCategory)
      .addSuccess(DataEnvelope(Category), { status: 201 })
      .addError(httpError(AlreadyExists))
      .annotate(OpenApi.Description, "A name is unique per type, in any case (409 ALREADY_EXISTS on `name`)")
  )
  .add(
    HttpApiEndpoint.put("update", `${CATEGORIES}/:id`)
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
      .setPath(CategoryIdPath)
      .addSuccess(DataEnvelope(CategoryDeleted))
      .addError(httpError(NotFound))
      .annotate(OpenApi.Description, "Listings that had the category keep existing without one")
  )
  .addError(httpError(Forbidden))
  .middleware(Authentication)
  .middleware(TenantMiddleware)
{}
