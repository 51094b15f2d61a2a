import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { AlreadyExists, Forbidden, httpError, NotFound } from "../http/ApiError.js"
import { CursorPage, DataEnvelope } from "../http/Envelope.js"
import { ConnectionsFeature } from "../http/FeatureGate.js"
import { Authentication } from "../identity/Authentication.js"
import { TenantMiddleware } from "../tenancy/TenancyApi.js"
import {
  Connection,
  ConnectionDeclined,
  ConnectionDeleted,
  ConnectionIdPath,
  ListConnectionsParams,
  RequestConnection
} from "./Connection.js"
import { ConnectionStateConflict } from "./ConnectionErrors.js"

const CONNECTIONS = "/api/v2/connections"

/** Connections between members (decisions D14, D14a); every route answers 403 `FEATURE_DISABLED` when off. */
export class ConnectionsApi extends HttpApiGroup.make("connections")
  .annotate(OpenApi.Title, "Connections")
  .annotate(
    OpenApi.Description,
    "Connections between members: requests, their answers, and the caller's connections; every route answers 403 " +
      "`FEATURE_DISABLED` when `connections` is off"
  )
  .add(
    HttpApiEndpoint.get("list", CONNECTIONS)
      .annotate(OpenApi.Summary, "List connections")
      .setUrlParams(ListConnectionsParams)
      .addSuccess(CursorPage(Connection))
      .addError(httpError(Forbidden))
      .annotate(
        OpenApi.Description,
        "The caller's accepted connections (default), or with `status=pending` the requests to and from the " +
          "caller, each with its `direction`; newest first"
      )
  )
  .add(
    HttpApiEndpoint.post("request", CONNECTIONS)
      .annotate(OpenApi.Summary, "Ask a member to connect")
      .setPayload(RequestConnection)
      .addSuccess(DataEnvelope(Connection), { status: 201 })
      .addError(httpError(NotFound))
      .addError(httpError(Forbidden))
      .addError(httpError(AlreadyExists))
      .annotate(
        OpenApi.Description,
        "A `pending` request to another member of this community (404 for anyone else; 422 for oneself). While a " +
          "request is pending or the two are connected, whoever asked, another request is 409 `ALREADY_EXISTS`"
      )
  )
  .add(
    HttpApiEndpoint.post("accept", `${CONNECTIONS}/:id/accept`)
      .annotate(OpenApi.Summary, "Accept a connection request")
      .setPath(ConnectionIdPath)
      .addSuccess(DataEnvelope(Connection))
      .addError(httpError(NotFound))
      .addError(httpError(Forbidden))
      .addError(httpError(ConnectionStateConflict))
      .annotate(
        OpenApi.Description,
        "Only the member who was asked (403 for anyone else); a request that is not pending any more is 409 " +
          "`INVALID_STATE`"
      )
  )
  .add(
    HttpApiEndpoint.post("decline", `${CONNECTIONS}/:id/decline`)
      .annotate(OpenApi.Summary, "Decline a connection request")
      .setPath(ConnectionIdPath)
      .addSuccess(DataEnvelope(ConnectionDeclined))
      .addError(httpError(NotFound))
      .addError(httpError(Forbidden))
      .addError(httpError(ConnectionStateConflict))
      .annotate(
        OpenApi.Description,
        "Only the member who was asked (403 for anyone else). The request is deleted, quietly: the requester may " +
          "ask again. A connection already accepted is 409 `INVALID_STATE` (end it with DELETE)"
      )
  )
  .add(
    HttpApiEndpoint.del("delete", `${CONNECTIONS}/:id`)
      .annotate(OpenApi.Summary, "Withdraw a request or end a connection")
      .setPath(ConnectionIdPath)
      .addSuccess(DataEnvelope(ConnectionDeleted))
      .addError(httpError(NotFound))
      .addError(httpError(Forbidden))
      .annotate(
        OpenApi.Description,
        "Either member: a pending request is withdrawn, an accepted connection ends. Anyone else is 403"
      )
  )
  .middleware(ConnectionsFeature)
  .middleware(Authentication)
  // Added last, so it runs first: the tenant is resolved before the caller.
  .middleware(TenantMiddleware)
{}
