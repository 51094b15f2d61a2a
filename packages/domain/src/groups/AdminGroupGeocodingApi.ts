import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Forbidden, httpError, NotFound } from "../http/ApiError.js"
import { DataEnvelope } from "../http/Envelope.js"
import { RecordId } from "../http/Ids.js"
import { Authentication } from "../identity/Authentication.js"
import { TenantMiddleware } from "../tenancy/TenancyApi.js"
import { Group, GroupIdPath } from "./Group.js"

/** How the last geocoding of a group's location ended (null: never geocoded since the location was set). */
export const GeocodeStatus = Schema.Literal("ok", "not_found", "failed")
export type GeocodeStatus = typeof GeocodeStatus.Type

/** `POST /admin/groups/{id}/geocode`: the group, with what geocoding did. */
export class GeocodedGroup extends Schema.Class<GeocodedGroup>("GeocodedGroup")({
  ...Group.fields,
  geocode_status: Schema.NullOr(GeocodeStatus).annotations({
    description: "`ok`: coordinates set; `not_found`: the geocoder knows no such place (coordinates cleared); " +
      "`failed`: the geocoder could not be asked (coordinates unchanged); null: never geocoded"
  }),
  geocoded_at: Schema.NullOr(Schema.DateTimeUtc).annotations({ description: "When it was last geocoded" }),
  geocoded_as: Schema.NullOr(Schema.String).annotations({
    description: "The place the geocoder matched on this call (\"Bristol, GB\"); null unless `ok`"
  })
}) {}

/** The most groups one batch geocodes. */
export const MAX_BATCH_GEOCODE = 500

const Count = Schema.Int.pipe(Schema.nonNegative())

export const BatchGeocode = Schema.Struct({
  group_ids: Schema.optionalWith(
    Schema.Array(RecordId).pipe(Schema.minItems(1), Schema.maxItems(MAX_BATCH_GEOCODE)),
    { exact: true }
  ).annotations({
    description: `These groups (1..${MAX_BATCH_GEOCODE}); when absent, the community's groups that have a location, ` +
      `oldest first, at most ${MAX_BATCH_GEOCODE}`
  }),
  only_missing: Schema.optionalWith(Schema.Boolean, { exact: true }).annotations({
    description: "Only groups without coordinates (never geocoded, not found or failed); default false"
  })
}).annotations({ parseOptions: { onExcessProperty: "error" } })
export type BatchGeocode = typeof BatchGeocode.Type

/** The body: `{...}`, `{}` or none at all (an empty body arrives as `null`). */
export const BatchGeocodePayload = Schema.Union(BatchGeocode, Schema.Null).annotations({
  description: "Optional; without it, every group with a location (up to the limit)"
})
export type BatchGeocodePayload = typeof BatchGeocodePayload.Type

export const BatchGeocodeOutcome = Schema.Literal("ok", "not_found", "failed", "skipped")
export type BatchGeocodeOutcome = typeof BatchGeocodeOutcome.Type

/** What happened to one group of a batch. */
export const BatchGeocodeResult = Schema.Struct({
  group_id: RecordId,
  status: BatchGeocodeOutcome,
  latitude: Schema.optionalWith(Schema.Number, { exact: true }),
  longitude: Schema.optionalWith(Schema.Number, { exact: true }),
  label: Schema.optionalWith(Schema.String, { exact: true }).annotations({
    description: "`ok`: the place the geocoder matched"
  }),
  reason: Schema.optionalWith(Schema.String, { exact: true }).annotations({
    description: "`skipped`: why (no such group in this community, no location, already geocoded, location " +
      "changed meanwhile); `failed`: what the geocoder said"
  })
})
export type BatchGeocodeResult = typeof BatchGeocodeResult.Type

export const BatchGeocodeReport = Schema.Struct({
  results: Schema.Array(BatchGeocodeResult).annotations({ description: "One per group, in the order asked" }),
  geocoded: Count,
  not_found: Count,
  failed: Count,
  skipped: Count,
  remaining: Count.annotations({
    description: "Groups the selection matched beyond this call's limit (without `group_ids`): call again, with " +
      "`only_missing`, to go on"
  })
})
export type BatchGeocodeReport = typeof BatchGeocodeReport.Type

const GROUPS = "/api/v2/admin/groups"

/** Geocoding groups' locations (decisions D17 "Groups admin"): tenant admins and platform super-admins. */
export class AdminGroupGeocodingApi extends HttpApiGroup.make("adminGroupGeocoding")
  .annotate(OpenApi.Title, "Admin: group geocoding")
  .annotate(
    OpenApi.Description,
    "Sets groups' latitude and longitude from their location through the service's geocoder (the bundled " +
      "offline gazetteer, or the HTTP geocoder at GEOCODER_URL)"
  )
  .add(
    HttpApiEndpoint.post("batch", `${GROUPS}/batch-geocode`)
      .annotate(OpenApi.Summary, "Geocode many groups")
      .setPayload(BatchGeocodePayload)
      .addSuccess(DataEnvelope(BatchGeocodeReport))
      .annotate(
        OpenApi.Description,
        `Geocodes up to ${MAX_BATCH_GEOCODE} groups and reports each: ok (with its coordinates), not_found, ` +
          "failed (the geocoder could not be asked) or skipped (ids that are not groups of this community, groups " +
          "without a location, with `only_missing` those that have coordinates). Never geocodes another " +
          "community's group"
      )
  )
  .add(
    HttpApiEndpoint.post("geocode", `${GROUPS}/:id/geocode`)
      .annotate(OpenApi.Summary, "Geocode a group")
      .setPath(GroupIdPath)
      .addSuccess(DataEnvelope(GeocodedGroup))
      .addError(httpError(NotFound))
      .annotate(
        OpenApi.Description,
        "Looks the group's location up: found → `latitude`/`longitude` set, `geocode_status: ok`; unknown → 200 " +
          "with `geocode_status: not_found` and no coordinates; geocoder unavailable → 200 with `geocode_status: " +
          "failed`. A group without a location → 422 (field `location`); another community's group → 404"
      )
  )
  .addError(httpError(Forbidden))
  .middleware(Authentication)
  .middleware(TenantMiddleware)
{}
