import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { AlreadyExists, Forbidden, httpError, NotFound } from "../http/ApiError.js"
import { CursorPage, DataEnvelope } from "../http/Envelope.js"
import { GroupsFeature } from "../http/FeatureGate.js"
import { Authentication } from "../identity/Authentication.js"
import { TenantMiddleware } from "../tenancy/TenancyApi.js"
import { GroupIdPath } from "./Group.js"
import { GroupStateConflict } from "./GroupErrors.js"
import { GroupLeft, GroupMember, GroupMemberPath, ListGroupMembersParams, UpdateGroupMember } from "./GroupMember.js"
import { GroupMessage, ListGroupMessagesParams, PostGroupMessage } from "./GroupMessage.js"
import { GroupChatroomDisabled, GroupFull } from "./GroupTypePolicies.js"

const GROUP = "/api/v2/groups/:id"

/** Joining, leaving and running a group's membership (decisions D14a). */
export class GroupMembersApi extends HttpApiGroup.make("groupMembers")
  .annotate(OpenApi.Title, "Groups: members")
  .annotate(
    OpenApi.Description,
    "Joining and leaving groups, their members, and what organisers do with memberships; every route answers 403 " +
      "`FEATURE_DISABLED` when `groups` is off"
  )
  .add(
    HttpApiEndpoint.post("join", `${GROUP}/join`)
      .annotate(OpenApi.Summary, "Join a group")
      .setPath(GroupIdPath)
      .addSuccess(DataEnvelope(GroupMember), { status: 201 })
      .addError(httpError(NotFound))
      .addError(httpError(Forbidden))
      .addError(httpError(AlreadyExists))
      .addError(httpError(GroupStateConflict))
      .addError(httpError(GroupFull))
      .annotate(
        OpenApi.Description,
        "A public group makes the caller an active member at once; a private one, or one whose type's `join` policy " +
          "is `approval`, records a `pending` request that an organiser approves. A member (pending or active) " +
          "again → 409 `ALREADY_EXISTS`; banned → 403; a group that is not active or dormant → 409 " +
          "`INVALID_STATE`; a group with as many active members as its type's `max_members` → 409 `GROUP_FULL`"
      )
  )
  .add(
    HttpApiEndpoint.post("leave", `${GROUP}/leave`)
      .annotate(OpenApi.Summary, "Leave a group")
      .setPath(GroupIdPath)
      .addSuccess(DataEnvelope(GroupLeft))
      .addError(httpError(NotFound))
      .addError(httpError(Forbidden))
      .addError(httpError(GroupStateConflict))
      .annotate(
        OpenApi.Description,
        "Ends the caller's membership or withdraws their request. Not a member → 404; banned → 403; the owner " +
          "hands the group over first → 409 `INVALID_STATE`"
      )
  )
  .add(
    HttpApiEndpoint.get("list", `${GROUP}/members`)
      .annotate(OpenApi.Summary, "List a group's members")
      .setPath(GroupIdPath)
      .setUrlParams(ListGroupMembersParams)
      .addSuccess(CursorPage(GroupMember))
      .addError(httpError(NotFound))
      .addError(httpError(Forbidden))
      .annotate(
        OpenApi.Description,
        "In member id order. A private group's members are listed for its active members and admins only. " +
          "Organisers and admins see pending and banned memberships too; others see active members"
      )
  )
  .add(
    HttpApiEndpoint.put("update", `${GROUP}/members/:userId`)
      .annotate(OpenApi.Summary, "Change a membership")
      .setPath(GroupMemberPath)
      .setPayload(UpdateGroupMember)
      .addSuccess(DataEnvelope(GroupMember))
      .addError(httpError(NotFound))
      .addError(httpError(Forbidden))
      .addError(httpError(GroupStateConflict))
      .addError(httpError(GroupFull))
      .annotate(
        OpenApi.Description,
        "Organisers (the owner included) and admins approve (`status: active`), ban, and set roles of members; " +
          "only the owner and admins change organisers or hand the group over (`role: owner`, to an active " +
          "member; the old owner becomes an organiser). The owner's own membership does not change (409). " +
          "Approving past the type's `max_members` → 409 `GROUP_FULL`"
      )
  )
  .middleware(GroupsFeature)
  .middleware(Authentication)
  .middleware(TenantMiddleware)
{}

/** A group's chatroom (decisions D14: members only). */
export class GroupChatApi extends HttpApiGroup.make("groupChat")
  .annotate(OpenApi.Title, "Groups: chatroom")
  .annotate(
    OpenApi.Description,
    "The chatroom of a group, for its active members; every route answers 403 `FEATURE_DISABLED` when `groups` " +
      "is off"
  )
  .add(
    HttpApiEndpoint.get("list", `${GROUP}/messages`)
      .annotate(OpenApi.Summary, "Read a group's chatroom")
      .setPath(GroupIdPath)
      .setUrlParams(ListGroupMessagesParams)
      .addSuccess(CursorPage(GroupMessage))
      .addError(httpError(NotFound))
      .addError(httpError(Forbidden))
      .addError(httpError(GroupChatroomDisabled))
      .annotate(
        OpenApi.Description,
        "Newest first, with their senders; for active members and admins. A group whose type has no chatroom → " +
          "403 `CHATROOM_DISABLED`"
      )
  )
  .add(
    HttpApiEndpoint.post("post", `${GROUP}/messages`)
      .annotate(OpenApi.Summary, "Write in a group's chatroom")
      .setPath(GroupIdPath)
      .setPayload(PostGroupMessage)
      .addSuccess(DataEnvelope(GroupMessage), { status: 201 })
      .addError(httpError(NotFound))
      .addError(httpError(Forbidden))
      .addError(httpError(GroupStateConflict))
      .addError(httpError(GroupChatroomDisabled))
      .annotate(
        OpenApi.Description,
        "Active members write; the other active members get a `group_message` bell. A group that is not active " +
          "or dormant → 409 `INVALID_STATE`; a group whose type has no chatroom → 403 `CHATROOM_DISABLED`"
      )
  )
  .middleware(GroupsFeature)
  .middleware(Authentication)
  .middleware(TenantMiddleware)
{}
