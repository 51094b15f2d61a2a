import { Layer } from "effect"
import { BlogService } from "./BlogService.js"
import { AdminBlogHttpLive, AdminHelpHttpLive } from "./ContentAdminHttp.js"
import { BlogHttpLive, HelpHttpLive } from "./ContentHttp.js"
import { HelpService } from "./HelpService.js"

export * from "./BlogService.js"
export * from "./HelpService.js"

/** The help page's FAQs and the blog (decisions D17 "Help"): public reads and the admins' routes. */
export const ContentLive = Layer.mergeAll(HelpHttpLive, AdminHelpHttpLive, BlogHttpLive, AdminBlogHttpLive).pipe(
  Layer.provide(HelpService.Default),
  Layer.provide(BlogService.Default)
)
