import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Forbidden, httpError, NotFound } from "../http/ApiError.js"
import { CursorPage, DataEnvelope } from "../http/Envelope.js"
import { Authentication } from "../identity/Authentication.js"
import { TenantMiddleware } from "../tenancy/TenancyApi.js"
import { FederatedMessage, FederatedMessagePath, FederatedWritesListParams } from "./FederationWrites.js"

const MESSAGES = "/api/v2/federation/messages"

/** The messages partner communities' members sent the caller (decisions D13: `POST /api/v1/federation/messages`). */
export class FederatedMessagesApi extends HttpApiGroup.make("federatedMessages")
  .annotate(OpenApi.Title, "Federated messages")
  .annotate(OpenApi.Description, "Messages members of partner communities sent the caller")
  .add(
    HttpApiEndpoint.get("list", MESSAGES)
      .annotate(OpenApi.Summary, "List my federated messages")
      .setUrlParams(FederatedWritesListParams)
      .addSuccess(CursorPage(FederatedMessage))
      .addError(httpError(Forbidden))
      .annotate(OpenApi.Description, "The caller's messages from partners' members, newest first")
  )
  .add(
    HttpApiEndpoint.post("read", `${MESSAGES}/:id/read`)
      .annotate(OpenApi.Summary, "Mark a federated message read")
      .setPath(FederatedMessagePath)
      .addSuccess(DataEnvelope(FederatedMessage))
      .addError(httpError(NotFound))
      .addError(httpError(Forbidden))
      .annotate(OpenApi.Description, "Sets `read_at` (kept when already read); another member's message is 404")
  )
  .middleware(Authentication)
  // Added last, so it runs first: the tenant is resolved before the caller.
  .middleware(TenantMiddleware)
{}
