import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { httpError, NotFound } from "../http/ApiError.js"
import { DataEnvelope } from "../http/Envelope.js"
import { PathId } from "../http/Ids.js"
import { TenantMiddleware } from "../tenancy/TenancyApi.js"
import { Authentication } from "./Authentication.js"
import { Language, MyProfile, NotificationPreferences, PersonName, PublicProfile, UserId } from "./User.js"

const exact = <S extends Schema.Schema.All>(schema: S) => Schema.optionalWith(schema, { exact: true })
const OptionalText = (max: number) => exact(Schema.NullOr(Schema.Trim.pipe(Schema.maxLength(max))))

export const UpdateMyProfile = Schema.Struct({
  first_name: exact(PersonName),
  last_name: exact(PersonName),
  bio: OptionalText(2000),
  avatar_url: OptionalText(2000),
  location: OptionalText(200),
  preferred_language: exact(Language),
  federation_opt_in: exact(Schema.Boolean)
})
export type UpdateMyProfile = typeof UpdateMyProfile.Type

export const UpdateNotificationPreferences = Schema.partialWith(NotificationPreferences, { exact: true })

export const UserIdPath = Schema.Struct({ id: PathId(UserId) })

/** The caller's profile and preferences, and other members' public profiles. */
export class UsersApi extends HttpApiGroup.make("users")
  .annotate(OpenApi.Title, "Users")
  .annotate(OpenApi.Description, "The caller's profile and preferences, and other members' public profiles")
  .add(
    HttpApiEndpoint.get("me", "/api/v2/users/me")
      .annotate(OpenApi.Summary, "Get my profile")
      .annotate(OpenApi.Description, "The caller's own profile, with the fields only they see")
      .addSuccess(DataEnvelope(MyProfile))
      .addError(httpError(NotFound))
  )
  .add(
    HttpApiEndpoint.put("updateMe", "/api/v2/users/me")
      .annotate(OpenApi.Summary, "Update my profile")
      .annotate(OpenApi.Description, "Changes the fields sent; `null` clears an optional one")
      .setPayload(UpdateMyProfile)
      .addSuccess(DataEnvelope(MyProfile))
      .addError(httpError(NotFound))
  )
  .add(
    HttpApiEndpoint.get("notifications", "/api/v2/users/me/notifications")
      .annotate(OpenApi.Summary, "Get my notification preferences")
      .annotate(OpenApi.Description, "The caller's notification switches; each is on unless switched off")
      .addSuccess(DataEnvelope(NotificationPreferences))
      .addError(httpError(NotFound))
  )
  .add(
    HttpApiEndpoint.put("updateNotifications", "/api/v2/users/me/notifications")
      .annotate(OpenApi.Summary, "Update my notification preferences")
      .annotate(OpenApi.Description, "Changes the switches sent; the others keep their values")
      .setPayload(UpdateNotificationPreferences)
      .addSuccess(DataEnvelope(NotificationPreferences))
      .addError(httpError(NotFound))
  )
  .add(
    HttpApiEndpoint.get("get", "/api/v2/users/:id")
      .annotate(OpenApi.Summary, "Get a member's public profile")
      .annotate(
        OpenApi.Description,
        "What any member of the community may see of another member; members of other communities are 404"
      )
      .setPath(UserIdPath)
      .addSuccess(DataEnvelope(PublicProfile))
      .addError(httpError(NotFound))
  )
  .middleware(Authentication)
  .middleware(TenantMiddleware)
{}
