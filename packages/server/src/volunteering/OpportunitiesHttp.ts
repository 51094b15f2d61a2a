import { HttpApiBuilder } from "@effect/platform"
import { Api, ok } from "@timebank/domain"
import { Effect } from "effect"
import { ApplicationsService } from "./ApplicationsService.js"
import { HoursService } from "./HoursService.js"
import { OpportunitiesService } from "./OpportunitiesService.js"

/** Opportunities and applying to them. */
export const OpportunitiesHttpLive = HttpApiBuilder.group(Api, "opportunities", (handlers) =>
  Effect.gen(function*() {
    const opportunities = yield* OpportunitiesService
    const applications = yield* ApplicationsService
    return handlers
      .handle("create", ({ path, payload }) => Effect.map(opportunities.create(path.id, payload), ok))
      .handle("list", ({ urlParams }) => opportunities.list(urlParams))
      .handle("get", ({ path }) => Effect.map(opportunities.get(path.id), ok))
      .handle("update", ({ path, payload }) => Effect.map(opportunities.update(path.id, payload), ok))
      .handle("apply", ({ path, payload }) => Effect.map(applications.apply(path.id, payload), ok))
  }))

/** Decisions on applications, and the caller's own. */
export const ApplicationsHttpLive = HttpApiBuilder.group(Api, "applications", (handlers) =>
  Effect.gen(function*() {
    const applications = yield* ApplicationsService
    return handlers
      .handle("review", ({ path, payload }) => Effect.map(applications.review(path.id, payload.status), ok))
      .handle("mine", ({ urlParams }) => applications.mine(urlParams))
  }))

/** Logging hours, their review with auto-pay, and the caller's own. */
export const HoursHttpLive = HttpApiBuilder.group(Api, "hours", (handlers) =>
  Effect.gen(function*() {
    const hours = yield* HoursService
    return handlers
      .handle("log", ({ payload }) => Effect.map(hours.log(payload), ok))
      .handle("review", ({ path, payload }) => Effect.map(hours.review(path.id, payload.status), ok))
      .handle("mine", ({ urlParams }) => hours.mine(urlParams))
  }))
