import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { AlreadyExists, Forbidden, httpError, NotFound } from "../http/ApiError.js"
import { AuditAction } from "../http/AuditAction.js"
import { CursorPage, DataEnvelope, OffsetPage } from "../http/Envelope.js"
import { BlogFeature } from "../http/FeatureGate.js"
import { Authentication } from "../identity/Authentication.js"
import { TenantMiddleware } from "../tenancy/TenancyApi.js"
import {
  AdminBlogListParams,
  BlogPost,
  BlogPostDeleted,
  BlogPostIdPath,
  BlogSlugPath,
  CreateBlogPost,
  PublicBlogParams,
  UpdateBlogPost
} from "./BlogPost.js"

/** The public blog (decisions D17 "Help"): published posts, no token needed. */
export class BlogApi extends HttpApiGroup.make("blog")
  .annotate(OpenApi.Title, "Blog")
  .annotate(
    OpenApi.Description,
    "The community's published blog posts, for anyone; every route answers 403 `FEATURE_DISABLED` when `blog` is off"
  )
  .add(
    HttpApiEndpoint.get("list", "/api/v2/blog")
      .annotate(OpenApi.Summary, "List blog posts")
      .setUrlParams(PublicBlogParams)
      .addSuccess(CursorPage(BlogPost))
      .annotate(OpenApi.Description, "Published posts, the latest published first; no token needed")
  )
  .add(
    HttpApiEndpoint.get("get", "/api/v2/blog/:slug")
      .annotate(OpenApi.Summary, "Get a blog post")
      .setPath(BlogSlugPath)
      .addSuccess(DataEnvelope(BlogPost))
      .addError(httpError(NotFound))
      .annotate(OpenApi.Description, "A published post by its slug; a draft is 404; no token needed")
  )
  .middleware(BlogFeature)
  .middleware(TenantMiddleware)
{}

const BLOG = "/api/v2/admin/blog"

/** Community admins write, edit, publish and withdraw blog posts. */
export class AdminBlogApi extends HttpApiGroup.make("adminBlog")
  .annotate(OpenApi.Title, "Admin: blog")
  .annotate(OpenApi.Description, "Community admins write, edit, publish and withdraw blog posts")
  .add(
    HttpApiEndpoint.get("list", BLOG)
      .annotate(OpenApi.Summary, "List blog posts (admin)")
      .setUrlParams(AdminBlogListParams)
      .addSuccess(OffsetPage(BlogPost))
      .annotate(OpenApi.Description, "Drafts and published posts, newest first; filters status and search")
  )
  .add(
    HttpApiEndpoint.post("create", BLOG)
      .annotate(OpenApi.Summary, "Create a blog post")
      .annotate(AuditAction, "blog.created")
      .setPayload(CreateBlogPost)
      .addSuccess(DataEnvelope(BlogPost), { status: 201 })
      .addError(httpError(AlreadyExists))
      .annotate(
        OpenApi.Description,
        "The caller is the author. Without `slug`, one is made from the title (`-2`, `-3`, … when taken); a " +
          "given slug another post has is 409 `ALREADY_EXISTS` on `slug`"
      )
  )
  .add(
    HttpApiEndpoint.get("get", `${BLOG}/:id`)
      .annotate(OpenApi.Summary, "Get a blog post (admin)")
      .setPath(BlogPostIdPath)
      .addSuccess(DataEnvelope(BlogPost))
      .addError(httpError(NotFound))
      .annotate(OpenApi.Description, "A post, draft or published")
  )
  .add(
    HttpApiEndpoint.put("update", `${BLOG}/:id`)
      .annotate(OpenApi.Summary, "Update a blog post")
      .annotate(AuditAction, "blog.updated")
      .setPath(BlogPostIdPath)
      .setPayload(UpdateBlogPost)
      .addSuccess(DataEnvelope(BlogPost))
      .addError(httpError(NotFound))
      .addError(httpError(AlreadyExists))
      .annotate(
        OpenApi.Description,
        "The fields given change; the slug stays when the title changes, so that links keep working; a slug " +
          "another post has is 409 `ALREADY_EXISTS` on `slug`"
      )
  )
  .add(
    HttpApiEndpoint.del("delete", `${BLOG}/:id`)
      .annotate(OpenApi.Summary, "Delete a blog post")
      .annotate(AuditAction, "blog.deleted")
      .setPath(BlogPostIdPath)
      .addSuccess(DataEnvelope(BlogPostDeleted))
      .addError(httpError(NotFound))
      .annotate(OpenApi.Description, "Removes the post; its slug is free again")
  )
  .add(
    HttpApiEndpoint.post("toggleStatus", `${BLOG}/:id/toggle-status`)
      .annotate(OpenApi.Summary, "Publish or withdraw a blog post")
      .annotate(AuditAction, "blog.status-toggled")
      .setPath(BlogPostIdPath)
      .addSuccess(DataEnvelope(BlogPost))
      .addError(httpError(NotFound))
      .annotate(
        OpenApi.Description,
        "A draft is published now (`published_at` set); a published post goes back to draft (`published_at` null)"
      )
  )
  .addError(httpError(Forbidden))
  .middleware(Authentication)
  .middleware(TenantMiddleware)
{}
