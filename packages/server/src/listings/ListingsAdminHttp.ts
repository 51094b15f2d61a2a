import { HttpApiBuilder } from "@effect/platform"
import { Api, ok } from "@timebank/domain"
import { Effect } from "effect"
import { AdminListingsService } from "./AdminListingsService.js"
import { AttributesService } from "./AttributesService.js"
import { CategoriesService } from "./CategoriesService.js"

export const AdminListingsHttpLive = HttpApiBuilder.group(Api, "adminListings", (handlers) =>
  Effect.gen(function*() {
    const admin = yield* AdminListingsService
    return handlers
      .handle("list", ({ urlParams }) => admin.list(urlParams))
      .handle("moderationQueue", ({ urlParams }) => admin.moderationQueue(urlParams))
      .handle("moderationStats", () => Effect.map(admin.moderationStats(), ok))
      .handle("get", ({ path }) => Effect.map(admin.get(path.id), ok))
      .handle("delete", ({ path }) => Effect.map(admin.remove(path.id), ok))
      .handle("approve", ({ path }) => Effect.map(admin.approve(path.id), ok))
  }))

export const AdminCategoriesHttpLive = HttpApiBuilder.group(
  Api,
  "adminCategories",
  (handlers) =>
    Effect.gen(function*() {
      const categories = yield* CategoriesService
      return handlers
        .handle("list", ({ urlParams }) => Effect.map(categories.adminList(urlParams.type), ok))
        .handle("create", ({ payload }) => Effect.map(categories.create(payload), ok))
        .handle("update", ({ path, payload }) => Effect.map(categories.update(path.id, payload), ok))
        .handle("delete", ({ path }) => Effect.map(categories.remove(path.id), ok))
    })
)

export const AdminAttributesHttpLive = HttpApiBuilder.group(
  Api,
  "adminAttributes",
  (handlers) =>
    Effect.gen(function*() {
      const attributes = yield* AttributesService
      return handlers
        .handle("list", () => Effect.map(attributes.adminList, ok))
        .handle("create", ({ payload }) => Effect.map(attributes.create(payload), ok))
        .handle("update", ({ path, payload }) => Effect.map(attributes.update(path.id, payload), ok))
        .handle("delete", ({ path }) => Effect.map(attributes.remove(path.id), ok))
    })
)
