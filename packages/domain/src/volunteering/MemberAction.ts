import type { HttpApiEndpoint } from "@effect/platform"
import type { HttpMethod } from "@effect/platform/HttpMethod"
import { Forbidden, httpError, NotFound } from "../http/ApiError.js"
import { Authentication } from "../identity/Authentication.js"

/**
 * A signed-in member acting on a record of this community (`endpoint.pipe(memberAction)`): 404 when it is none of
 * this community's, 403 when the caller may not act on it. An error of the action itself goes before the pipe.
 */
export const memberAction = <
  Name extends string,
  Method extends HttpMethod,
  Path,
  UrlParams,
  Payload,
  Headers,
  Success,
  Error,
  R,
  RE
>(
  endpoint: HttpApiEndpoint.HttpApiEndpoint<Name, Method, Path, UrlParams, Payload, Headers, Success, Error, R, RE>
) => endpoint.addError(httpError(NotFound)).addError(httpError(Forbidden)).middleware(Authentication)
