import { HttpApiBuilder } from "@effect/platform"
import { Api, ok } from "@timebank/domain"
import { Effect } from "effect"
import { MatchingAdminService } from "./MatchingAdminService.js"
import { MatchingService } from "./MatchingService.js"

/** Members' suggestions and matching profile. */
export const MatchingHttpLive = HttpApiBuilder.group(Api, "matching", (handlers) =>
  Effect.gen(function*() {
    const matching = yield* MatchingService
    return handlers
      .handle("list", ({ urlParams }) => matching.list(urlParams))
      .handle("profile", () => Effect.map(matching.profile(), ok))
      .handle("updateProfile", ({ payload }) => Effect.map(matching.updateProfile(payload), ok))
  }))

/** Matching administration. */
export const AdminMatchingHttpLive = HttpApiBuilder.group(Api, "adminMatching", (handlers) =>
  Effect.gen(function*() {
    const admin = yield* MatchingAdminService
    return handlers
      .handle("config", () => Effect.map(admin.config(), ok))
      .handle("updateConfig", ({ payload }) => Effect.map(admin.updateConfig(payload), ok))
      .handle("clearCache", () => Effect.map(admin.clearCache(), ok))
      .handle("stats", () => Effect.map(admin.stats(), ok))
      .handle("approvals", ({ urlParams }) => admin.approvals(urlParams))
      .handle("approvalStats", () => Effect.map(admin.approvalStats(), ok))
      .handle("approval", ({ path }) => Effect.map(admin.approval(path.id), ok))
      .handle("approve", ({ path, payload }) => Effect.map(admin.approve(path.id, payload), ok))
      .handle("reject", ({ path, payload }) => Effect.map(admin.reject(path.id, payload), ok))
  }))
