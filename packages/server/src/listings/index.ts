import { Layer } from "effect"
import { AdminListingsService } from "./AdminListingsService.js"
import { AttributesService } from "./AttributesService.js"
import { CategoriesService } from "./CategoriesService.js"
import { AdminAttributesHttpLive, AdminCategoriesHttpLive, AdminListingsHttpLive } from "./ListingsAdminHttp.js"
import { AttributesHttpLive, CategoriesHttpLive, ListingsHttpLive } from "./ListingsHttp.js"
import { ListingsService } from "./ListingsService.js"

export * from "../platform/Slug.js"
export * from "./AdminListingsService.js"
export * from "./AttributeRepo.js"
export * from "./AttributesService.js"
export * from "./AttributeValues.js"
export * from "./CategoriesService.js"
export * from "./CategoryDirectory.js"
export * from "./CategoryRepo.js"
export * from "./ListingCandidates.js"
export * from "./ListingPage.js"
export * from "./ListingRepo.js"
export * from "./ListingReports.js"
export * from "./ListingsPolicy.js"
export * from "./ListingsService.js"
export * from "./ListingStats.js"
export * from "./ListingViews.js"

/** Listings, categories and attributes: the public, member and admin routes (decisions D6). */
export const ListingsLive = Layer.mergeAll(
  ListingsHttpLive,
  CategoriesHttpLive,
  AttributesHttpLive,
  AdminListingsHttpLive,
  AdminCategoriesHttpLive,
  AdminAttributesHttpLive
).pipe(
  Layer.provide(Layer.mergeAll(
    ListingsService.Default,
    AdminListingsService.Default,
    CategoriesService.Default,
    AttributesService.Default
  ))
)
