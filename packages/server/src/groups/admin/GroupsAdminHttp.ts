import { HttpApiBuilder } from "@effect/platform"
import { Api, ok } from "@timebank/domain"
import { Effect } from "effect"
import { GroupsAdminService } from "./GroupsAdminService.js"

/** `/api/v2/admin/groups/*` (decisions D17 "Groups admin"), the moderation queue aside (moderation serves it). */
export const GroupsAdminHttpLive = HttpApiBuilder.group(Api, "adminGroups", (handlers) =>
  Effect.gen(function*() {
    const admin = yield* GroupsAdminService
    return handlers
      .handle("list", ({ urlParams }) => admin.list(urlParams))
      .handle("analytics", () => Effect.map(admin.analytics(), ok))
      .handle("approvals", ({ urlParams }) => admin.approvals(urlParams))
      .handle("approve", ({ path }) => Effect.map(admin.approve(path.groupId), ok))
      .handle("reject", ({ path, payload }) => Effect.map(admin.reject(path.groupId, payload?.reason ?? null), ok))
      .handle("featured", ({ urlParams }) => admin.featured(urlParams))
      .handle("updateFeatured", ({ payload }) => Effect.map(admin.updateFeatured(payload), ok))
      .handle("recommendations", ({ urlParams }) => Effect.map(admin.recommendations(urlParams), ok))
      .handle("toggleFeatured", ({ path }) => Effect.map(admin.toggleFeatured(path.id), ok))
      .handle("setStatus", ({ path, payload }) => Effect.map(admin.setStatus(path.id, payload.status), ok))
      .handle("get", ({ path }) => Effect.map(admin.get(path.id), ok))
      .handle("update", ({ path, payload }) => Effect.map(admin.update(path.id, payload), ok))
      .handle("delete", ({ path }) => Effect.map(admin.remove(path.id), ok))
      .handle("members", ({ path, urlParams }) => admin.members(path.id, urlParams))
  }))
