import type { Actor, CurrentTenant } from "@timebank/domain"
import { Effect, Option } from "effect"
import { ListingRepo } from "./ListingRepo.js"
import { canSee } from "./ListingsPolicy.js"

/** What other features may read of listings (moderation checks what a member reports). */
export class ListingDirectory extends Effect.Service<ListingDirectory>()("ListingDirectory", {
  dependencies: [ListingRepo.Default],
  effect: Effect.gen(function*() {
    const listings = yield* ListingRepo

    /**
     * Whether `viewer` can see listing `id` of this community, as `GET /listings/{id}` decides: an active listing,
     * or a pending one of theirs (or any, for an admin). Deleted listings and other tenants' are not there.
     */
    const visibleTo = (id: number, viewer: Actor): Effect.Effect<boolean, never, CurrentTenant> =>
      Effect.map(listings.findById(id), Option.exists((row) => canSee(Option.some(viewer), row)))

    return { visibleTo } as const
  })
}) {}
