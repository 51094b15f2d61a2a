import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Forbidden, httpError, NotFound } from "../http/ApiError.js"
import { CursorPage, DataEnvelope } from "../http/Envelope.js"
import { MessagesFeature } from "../http/FeatureGate.js"
import { Authentication } from "../identity/Authentication.js"
import { TenantMiddleware } from "../tenancy/TenancyApi.js"
import {
  Conversation,
  ConversationPath,
  ConversationRead,
  ListConversationsParams,
  ListThreadParams,
  Message,
  SendMessage
} from "./Message.js"

const MESSAGES = "/api/v2/messages"
const CONVERSATIONS = `${MESSAGES}/conversations`

/** Direct messages between members (decisions D14); every route answers 403 `FEATURE_DISABLED` when off. */
export class MessagesApi extends HttpApiGroup.make("messages")
  .annotate(OpenApi.Title, "Messages")
  .annotate(
    OpenApi.Description,
    "Direct messages between two members of a community: send, the caller's conversations, one conversation, and " +
      "marking it read. Only the two members see a conversation. Every route answers 403 `FEATURE_DISABLED` when " +
      "`messages` is off"
  )
  .add(
    HttpApiEndpoint.post("send", MESSAGES)
      .annotate(OpenApi.Summary, "Send a message")
      .setPayload(SendMessage)
      .addSuccess(DataEnvelope(Message), { status: 201 })
      .addError(httpError(NotFound))
      .addError(httpError(Forbidden))
      .annotate(
        OpenApi.Description,
        "To another member of this community (404 `NOT_FOUND` on `recipient_id` for anyone else; 422 for oneself " +
          "or a member who cannot sign in). The recipient gets a `new_message` notification unless they muted the " +
          "sender"
      )
  )
  .add(
    HttpApiEndpoint.get("conversations", CONVERSATIONS)
      .annotate(OpenApi.Summary, "List the caller's conversations")
      .setUrlParams(ListConversationsParams)
      .addSuccess(CursorPage(Conversation))
      .addError(httpError(Forbidden))
      .annotate(
        OpenApi.Description,
        "One item per member the caller has exchanged messages with: the other member, the latest message and the " +
          "caller's unread count; most recent activity first"
      )
  )
  .add(
    HttpApiEndpoint.get("thread", `${CONVERSATIONS}/:userId`)
      .annotate(OpenApi.Summary, "Read a conversation")
      .setPath(ConversationPath)
      .setUrlParams(ListThreadParams)
      .addSuccess(CursorPage(Message))
      .addError(httpError(NotFound))
      .addError(httpError(Forbidden))
      .annotate(
        OpenApi.Description,
        "The messages between the caller and member `userId`, newest first; empty before the first message. A " +
          "member of no conversation with the caller and not of this community is 404"
      )
  )
  .add(
    HttpApiEndpoint.post("read", `${CONVERSATIONS}/:userId/read`)
      .annotate(OpenApi.Summary, "Mark a conversation read")
      .setPath(ConversationPath)
      .addSuccess(DataEnvelope(ConversationRead))
      .addError(httpError(NotFound))
      .addError(httpError(Forbidden))
      .annotate(
        OpenApi.Description,
        "Every unread message member `userId` sent the caller becomes read; the conversation's unread count is 0"
      )
  )
  .middleware(MessagesFeature)
  .middleware(Authentication)
  // Added last, so it runs first: the tenant is resolved before the caller.
  .middleware(TenantMiddleware)
{}
