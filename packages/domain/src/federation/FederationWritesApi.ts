import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { AlreadyExists, httpError, NotFound } from "../http/ApiError.js"
import { DataEnvelope } from "../http/Envelope.js"
import { FederationReview } from "./FederationInboundViews.js"
import { MessagesWrite, ReviewsWrite } from "./FederationPolicies.js"
import { CreateFederatedMessage, CreateFederatedReview, FederatedMessageSent } from "./FederationWrites.js"

const FEDERATION = "/api/v1/federation"

/** Reviews and messages partners' members write to ours (decisions D13, D13a). */
export class FederationWritesApi extends HttpApiGroup.make("federationWrites")
  .annotate(OpenApi.Title, "Federation: reviews and messages")
  .annotate(
    OpenApi.Description,
    "A partner's member reviews, or writes to, one of our opted-in members. Both need a key bound to an active " +
      "partner"
  )
  .add(
    HttpApiEndpoint.post("review", `${FEDERATION}/reviews`)
      .annotate(OpenApi.Summary, "Review a member")
      .setPayload(CreateFederatedReview)
      .addSuccess(DataEnvelope(FederationReview), { status: 201 })
      .addError(httpError(NotFound))
      .addError(httpError(AlreadyExists))
      .annotate(
        OpenApi.Description,
        "Stored as a federated review of the member (`is_federated: true`), published at once (`reviews:write`, " +
          "toggle `reviews`). One per partner's reviewer (`reviewer.external_id`) and member: a second is 409 " +
          "`ALREADY_EXISTS`. A member who is not active and opted in here is 404"
      )
      .middleware(ReviewsWrite)
  )
  .add(
    HttpApiEndpoint.post("message", `${FEDERATION}/messages`)
      .annotate(OpenApi.Summary, "Message a member")
      .setPayload(CreateFederatedMessage)
      .addSuccess(DataEnvelope(FederatedMessageSent), { status: 201 })
      .addError(httpError(NotFound))
      .annotate(
        OpenApi.Description,
        "The member reads it under `GET /api/v2/federation/messages` and gets a `new_message` notification " +
          "(`messages:write`, toggle `messaging`). A recipient who is not active and opted in here is 404"
      )
      .middleware(MessagesWrite)
  )
{}
