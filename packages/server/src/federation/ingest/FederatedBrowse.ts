import {
  BROWSE_PER_PAGE_DEFAULT,
  CurrentTenant,
  type FederatedRecordKind,
  type FederationToggle,
  type ListFederatedParams
} from "@timebank/domain"
import { Effect } from "effect"
import { idCursorPage } from "../../platform/Paging.js"
import { federationDisabled } from "../auth/FederationAccessLive.js"
import { FederationSwitches } from "../switches/FederationSwitches.js"
import { type BrowsedRecordRow, FederatedRecordsRepo } from "./FederatedRecordsRepo.js"
import { eventView, groupView, listingView } from "./FederatedViews.js"

/**
 * Members' browse lists of what partners shared (decisions D13a): only while the platform switch, the community's
 * whitelist and the kind's toggle are on (else 503 `FEDERATION_DISABLED`, never saying which), only records of
 * active partners, newest first.
 */
export class FederatedBrowse extends Effect.Service<FederatedBrowse>()("FederatedBrowse", {
  dependencies: [FederatedRecordsRepo.Default, FederationSwitches.Default],
  effect: Effect.gen(function*() {
    const repo = yield* FederatedRecordsRepo
    const switches = yield* FederationSwitches

    const requireToggle = (toggle: FederationToggle) =>
      Effect.gen(function*() {
        const tenant = yield* CurrentTenant
        const platform = yield* switches.platformEnabled
        const settings = yield* switches.tenant(tenant.id)
        // The same answer partners get (503 with `Retry-After: 3600`), never saying which switch is off.
        if (!(platform && settings.whitelisted && settings.toggles[toggle])) return yield* federationDisabled
      })

    const page = <View>(
      kind: FederatedRecordKind,
      toggle: FederationToggle,
      view: (row: BrowsedRecordRow) => View,
      params: ListFederatedParams
    ) =>
      Effect.gen(function*() {
        yield* requireToggle(toggle)
        const perPage = params.per_page ?? BROWSE_PER_PAGE_DEFAULT
        const rows = yield* repo.browse({ kind, before: params.cursor, limit: perPage + 1 })
        return yield* idCursorPage(rows, perPage, (page) => Effect.succeed(page.map(view)))
      })

    return {
      events: (params: ListFederatedParams) => page("event", "events", eventView, params),
      listings: (params: ListFederatedParams) => page("listing", "listings", listingView, params),
      groups: (params: ListFederatedParams) => page("group", "groups", groupView, params)
    } as const
  })
}) {}
