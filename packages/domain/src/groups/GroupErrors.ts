import { ApiError } from "../http/ApiError.js"

/**
 * 409 `INVALID_STATE` (decisions D15's code for acting on a record in the wrong state): the group or the membership
 * is not in a state that allows this — joining or writing to a group that is not active, the owner leaving or losing
 * their place without handing the group over, handing it to a member who is not active.
 */
export class GroupStateConflict extends ApiError<GroupStateConflict>()("GroupStateConflict", "INVALID_STATE", 409) {}
