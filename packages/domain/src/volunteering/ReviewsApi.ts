import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { AlreadyExists, httpError, NotFound } from "../http/ApiError.js"
import { CursorPage, DataEnvelope } from "../http/Envelope.js"
import { VolunteeringFeature } from "../http/FeatureGate.js"
import { TenantMiddleware } from "../tenancy/TenancyApi.js"
import { memberAction } from "./MemberAction.js"
import { VolunteeringPageParams } from "./Opportunity.js"
import { CreateReview, Review, ReviewTargetPath } from "./Review.js"

const REVIEWS = "/api/v2/volunteering/reviews"

/** Reviews of organisations and members (spec "Review"); gated on `volunteering`. */
export class ReviewsApi extends HttpApiGroup.make("reviews")
  .annotate(OpenApi.Title, "Volunteering: reviews")
  .annotate(OpenApi.Description, "Reviews of organisations and members; gated on `volunteering`")
  .add(
    HttpApiEndpoint.post("create", REVIEWS)
      .annotate(OpenApi.Summary, "Write a review")
      .setPayload(CreateReview)
      .addSuccess(DataEnvelope(Review), { status: 201 })
      .addError(httpError(AlreadyExists))
      .pipe(memberAction)
      .annotate(
        OpenApi.Description,
        "Reviews an active organisation or a member of this community, once per target (409 `ALREADY_EXISTS` " +
          "after); reviewing oneself is 422; stored approved"
      )
  )
  .add(
    HttpApiEndpoint.get("list", `${REVIEWS}/:type/:id`)
      .annotate(OpenApi.Summary, "List reviews of an organisation or member")
      .setPath(ReviewTargetPath)
      .setUrlParams(VolunteeringPageParams)
      .addSuccess(CursorPage(Review))
      .addError(httpError(NotFound))
      .annotate(
        OpenApi.Description,
        "Approved reviews of an organisation (`organization`) or a member (`user`), newest first; no token needed"
      )
  )
  .middleware(VolunteeringFeature)
  .middlewareEndpoints(TenantMiddleware)
{}
