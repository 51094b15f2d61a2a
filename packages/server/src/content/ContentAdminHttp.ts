import { HttpApiBuilder } from "@effect/platform"
import { Api, ok } from "@timebank/domain"
import { Effect } from "effect"
import { BlogService } from "./BlogService.js"
import { HelpService } from "./HelpService.js"

/** `/api/v2/admin/help/faqs`: community admins manage the help page's questions. */
export const AdminHelpHttpLive = HttpApiBuilder.group(Api, "adminHelp", (handlers) =>
  Effect.gen(function*() {
    const help = yield* HelpService
    return handlers
      .handle("list", ({ urlParams }) => help.list(urlParams))
      .handle("create", ({ payload }) => Effect.map(help.create(payload), ok))
      .handle("update", ({ path, payload }) => Effect.map(help.update(path.id, payload), ok))
      .handle("delete", ({ path }) => Effect.map(help.remove(path.id), ok))
  }))

/** `/api/v2/admin/blog`: community admins manage blog posts. */
export const AdminBlogHttpLive = HttpApiBuilder.group(Api, "adminBlog", (handlers) =>
  Effect.gen(function*() {
    const blog = yield* BlogService
    return handlers
      .handle("list", ({ urlParams }) => blog.list(urlParams))
      .handle("create", ({ payload }) => Effect.map(blog.create(payload), ok))
      .handle("get", ({ path }) => Effect.map(blog.get(path.id), ok))
      .handle("update", ({ path, payload }) => Effect.map(blog.update(path.id, payload), ok))
      .handle("delete", ({ path }) => Effect.map(blog.remove(path.id), ok))
      .handle("toggleStatus", ({ path }) => Effect.map(blog.toggleStatus(path.id), ok))
  }))
