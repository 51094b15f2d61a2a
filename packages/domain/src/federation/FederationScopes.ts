import { Schema } from "effect"

/** What an inbound API key may do (decisions D13). */
export const FederationScope = Schema.Literal(
  "members:read",
  "listings:read",
  "events:read",
  "groups:read",
  "reviews:read",
  "reviews:write",
  "messages:write",
  "transactions:read",
  "transactions:write"
)
export type FederationScope = typeof FederationScope.Type
export const FEDERATION_SCOPES: ReadonlyArray<FederationScope> = FederationScope.literals

/** A community's per-feature federation toggles (decisions D13), all off by default. */
export const FederationToggle = Schema.Literal(
  "profiles",
  "messaging",
  "transactions",
  "listings",
  "events",
  "groups",
  "reviews",
  "volunteering"
)
export type FederationToggle = typeof FederationToggle.Type
export const FEDERATION_TOGGLES: ReadonlyArray<FederationToggle> = FederationToggle.literals

export type FederationToggles = { readonly [K in FederationToggle]: boolean }

/** Every toggle off: a community that never saved its federation settings. */
export const NO_TOGGLES: FederationToggles = Object.fromEntries(
  FEDERATION_TOGGLES.map((t) => [t, false])
) as unknown as FederationToggles
