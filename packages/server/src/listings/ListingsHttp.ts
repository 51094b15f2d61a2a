import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Api, ok } from "@timebank/domain"
import { Effect } from "effect"
import { AttributesService } from "./AttributesService.js"
import { CategoriesService } from "./CategoriesService.js"
import { ListingsService } from "./ListingsService.js"

export const ListingsHttpLive = HttpApiBuilder.group(Api, "listings", (handlers) =>
  Effect.gen(function*() {
    const listings = yield* ListingsService
    return handlers
      // The page comes already in its wire form (ListingsService.list): sent as it is, not encoded again.
      .handle("list", ({ urlParams }) => Effect.map(listings.list(urlParams), HttpServerResponse.unsafeJson))
      .handle("get", ({ path }) => Effect.map(listings.get(path.id), ok))
      .handle("create", ({ payload }) => Effect.map(listings.create(payload), ok))
      .handle("update", ({ path, payload }) => Effect.map(listings.update(path.id, payload), ok))
      .handle("delete", ({ path }) => Effect.map(listings.remove(path.id), ok))
  }))

export const CategoriesHttpLive = HttpApiBuilder.group(Api, "categories", (handlers) =>
  Effect.gen(function*() {
    const categories = yield* CategoriesService
    return handlers.handle("list", ({ urlParams }) => Effect.map(categories.list(urlParams.type), ok))
  }))

export const AttributesHttpLive = HttpApiBuilder.group(Api, "attributes", (handlers) =>
  Effect.gen(function*() {
    const attributes = yield* AttributesService
    return handlers.handle("list", () => Effect.map(attributes.list, ok))
  }))
