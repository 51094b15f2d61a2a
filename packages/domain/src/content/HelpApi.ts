import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Forbidden, httpError, NotFound } from "../http/ApiError.js"
import { AuditAction } from "../http/AuditAction.js"
import { CursorPage, DataEnvelope, OffsetPage } from "../http/Envelope.js"
import { HelpFeature } from "../http/FeatureGate.js"
import { Authentication } from "../identity/Authentication.js"
import { TenantMiddleware } from "../tenancy/TenancyApi.js"
import { AdminFaqListParams, CreateFaq, Faq, FaqDeleted, FaqIdPath, PublicFaqParams, UpdateFaq } from "./Faq.js"

/** The public help page (decisions D17 "Help"): published questions, no token needed. */
export class HelpApi extends HttpApiGroup.make("help")
  .annotate(OpenApi.Title, "Help")
  .annotate(
    OpenApi.Description,
    "The community's frequently asked questions, for anyone; every route answers 403 `FEATURE_DISABLED` when " +
      "`help` is off"
  )
  .add(
    HttpApiEndpoint.get("faqs", "/api/v2/help/faqs")
      .annotate(OpenApi.Summary, "List help questions")
      .setUrlParams(PublicFaqParams)
      .addSuccess(CursorPage(Faq))
      .annotate(
        OpenApi.Description,
        "Published questions, by category, then position, then id (so a page lists each category's questions " +
          "together, in the admins' order); no token needed"
      )
  )
  .middleware(HelpFeature)
  .middleware(TenantMiddleware)
{}

const FAQS = "/api/v2/admin/help/faqs"

/** Community admins write, order and publish the help page's questions. */
export class AdminHelpApi extends HttpApiGroup.make("adminHelp")
  .annotate(OpenApi.Title, "Admin: help")
  .annotate(OpenApi.Description, "Community admins write, order and publish the help page's questions")
  .add(
    HttpApiEndpoint.get("list", FAQS)
      .annotate(OpenApi.Summary, "List help questions (admin)")
      .setUrlParams(AdminFaqListParams)
      .addSuccess(OffsetPage(Faq))
      .annotate(
        OpenApi.Description,
        "Every question, published or not, by position then id; filters category, is_published and search"
      )
  )
  .add(
    HttpApiEndpoint.post("create", FAQS)
      .annotate(OpenApi.Summary, "Create a help question")
      .annotate(AuditAction, "faq.created")
      .setPayload(CreateFaq)
      .addSuccess(DataEnvelope(Faq), { status: 201 })
      .annotate(
        OpenApi.Description,
        "Without `position`, the question goes after every other one (one more than the highest position)"
      )
  )
  .add(
    HttpApiEndpoint.put("update", `${FAQS}/:id`)
      .annotate(OpenApi.Summary, "Update a help question")
      .annotate(AuditAction, "faq.updated")
      .setPath(FaqIdPath)
      .setPayload(UpdateFaq)
      .addSuccess(DataEnvelope(Faq))
      .addError(httpError(NotFound))
      .annotate(
        OpenApi.Description,
        "The fields given change; a new position moves only this question (ties keep the order of creation)"
      )
  )
  .add(
    HttpApiEndpoint.del("delete", `${FAQS}/:id`)
      .annotate(OpenApi.Summary, "Delete a help question")
      .annotate(AuditAction, "faq.deleted")
      .setPath(FaqIdPath)
      .addSuccess(DataEnvelope(FaqDeleted))
      .addError(httpError(NotFound))
      .annotate(OpenApi.Description, "Removes the question from the help page and the admin list")
  )
  .addError(httpError(Forbidden))
  .middleware(Authentication)
  .middleware(TenantMiddleware)
{}
