import { HttpApiBuilder } from "@effect/platform"
import { Api, ok } from "@timebank/domain"
import { Effect, Layer } from "effect"
import { requireTenantAdmin } from "../../platform/Policy.js"
import { AdminConfigAreasService } from "./AdminConfigAreasService.js"

const AdminConfigAreasHandlers = HttpApiBuilder.group(Api, "adminConfigAreas", (handlers) =>
  Effect.gen(function*() {
    const areas = yield* AdminConfigAreasService
    const answer = <A, E, R>(effect: Effect.Effect<A, E, R>) => requireTenantAdmin(Effect.map(effect, ok))
    return handlers
      .handle("config", () => answer(areas.overview))
      .handle("ai", () => answer(areas.area("ai")))
      .handle("updateAi", ({ payload }) => answer(areas.updateArea("ai", payload)))
      .handle("feedAlgorithm", () => answer(areas.area("feed_algorithm")))
      .handle("updateFeedAlgorithm", ({ payload }) => answer(areas.updateArea("feed_algorithm", payload)))
      .handle("images", () => answer(areas.area("images")))
      .handle("updateImages", ({ payload }) => answer(areas.updateArea("images", payload)))
      .handle("seo", () => answer(areas.area("seo")))
      .handle("updateSeo", ({ payload }) => answer(areas.updateArea("seo", payload)))
      .handle("languages", () => answer(areas.languages))
      .handle("updateLanguages", ({ payload }) => answer(areas.updateLanguages(payload)))
      .handle("nativeApp", () => answer(areas.area("native_app")))
      .handle("updateNativeApp", ({ payload }) => answer(areas.updateArea("native_app", payload)))
      .handle("algorithms", () => answer(areas.algorithms))
      .handle("setAlgorithm", ({ path, payload }) => answer(areas.setAlgorithm(path.area, payload)))
      .handle("algorithmHealth", () => answer(areas.algorithmHealth))
  }))

/** The configuration areas' routes (decisions D17); TenantConfig, RankingHealth and TenantService come from ServicesLive. */
export const AdminConfigAreasHttpLive = AdminConfigAreasHandlers.pipe(Layer.provide(AdminConfigAreasService.Default))
