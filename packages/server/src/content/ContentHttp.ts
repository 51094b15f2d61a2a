import { HttpApiBuilder } from "@effect/platform"
import { Api, ok } from "@timebank/domain"
import { Effect } from "effect"
import { BlogService } from "./BlogService.js"
import { HelpService } from "./HelpService.js"

/** `GET /api/v2/help/faqs`: the public help page. */
export const HelpHttpLive = HttpApiBuilder.group(Api, "help", (handlers) =>
  Effect.gen(function*() {
    const help = yield* HelpService
    return handlers.handle("faqs", ({ urlParams }) => help.publicFaqs(urlParams))
  }))

/** `GET /api/v2/blog` and `GET /api/v2/blog/{slug}`: the public blog. */
export const BlogHttpLive = HttpApiBuilder.group(Api, "blog", (handlers) =>
  Effect.gen(function*() {
    const blog = yield* BlogService
    return handlers
      .handle("list", ({ urlParams }) => blog.publicList(urlParams))
      .handle("get", ({ path }) => Effect.map(blog.publicGet(path.slug), ok))
  }))
