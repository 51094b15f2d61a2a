import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Forbidden, httpError, NotFound } from "../http/ApiError.js"
import { DataEnvelope } from "../http/Envelope.js"
import { PollsFeature } from "../http/FeatureGate.js"
import { Authentication } from "../identity/Authentication.js"
import { TenantMiddleware } from "../tenancy/TenancyApi.js"
import { CreatePoll, Poll, PollIdPath, VotePoll } from "./Poll.js"

const POLLS = "/api/v2/polls"

/** Polls that events can carry (`poll_ids`, decisions D8); every route answers 403 `FEATURE_DISABLED` when `polls` is off. */
export class PollsApi extends HttpApiGroup.make("polls")
  .annotate(OpenApi.Title, "Polls")
  .annotate(
    OpenApi.Description,
    "Polls that events can carry; every route answers 403 `FEATURE_DISABLED` when `polls` is off"
  )
  .add(
    HttpApiEndpoint.post("create", POLLS)
      .annotate(OpenApi.Summary, "Create a poll")
      .setPayload(CreatePoll)
      .addSuccess(DataEnvelope(Poll), { status: 201 })
      .addError(httpError(Forbidden))
      .annotate(OpenApi.Description, "A member asks a question; they own the poll and may attach it to their events")
  )
  .add(
    HttpApiEndpoint.get("get", `${POLLS}/:id`)
      .annotate(OpenApi.Summary, "Get a poll")
      .setPath(PollIdPath)
      .addSuccess(DataEnvelope(Poll))
      .addError(httpError(NotFound))
      .annotate(OpenApi.Description, "A poll with its votes per option and the caller's own vote")
  )
  .add(
    HttpApiEndpoint.post("vote", `${POLLS}/:id/vote`)
      .annotate(OpenApi.Summary, "Vote in a poll")
      .setPath(PollIdPath)
      .setPayload(VotePoll)
      .addSuccess(DataEnvelope(Poll))
      .addError(httpError(NotFound))
      .addError(httpError(Forbidden))
      .annotate(
        OpenApi.Description,
        "One vote per member: voting again moves the vote to the new option. An option of another poll is a 422"
      )
  )
  .middleware(PollsFeature)
  .middleware(Authentication)
  // Added last, so it runs first: the tenant is resolved before the caller.
  .middleware(TenantMiddleware)
{}
