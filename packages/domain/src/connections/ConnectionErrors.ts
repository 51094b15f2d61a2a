import { ApiError } from "../http/ApiError.js"

/**
 * 409 `INVALID_STATE` (decisions D15's code for acting on a record in the wrong state): accepting or declining a
 * connection that is no longer a pending request.
 */
export class ConnectionStateConflict
  extends ApiError<ConnectionStateConflict>()("ConnectionStateConflict", "INVALID_STATE", 409)
{}
