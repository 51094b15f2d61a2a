import { ApiError } from "../http/ApiError.js"

/** Only a `pending` listing can be approved. */
export class ListingNotPending extends ApiError<ListingNotPending>()("ListingNotPending", "LISTING_NOT_PENDING", 422) {}
