import { Context, Data, type Effect, type Option } from "effect"

/** A place a free-text location resolved to. */
export interface GeoPoint {
  readonly latitude: number
  readonly longitude: number
  /** The gazetteer's or provider's name for the place (e.g. "Bristol, GB"). */
  readonly label: string
}

/** The geocoder could not be asked (HTTP provider down or answering garbage); nothing was resolved. */
export class GeocoderUnavailable extends Data.TaggedError("GeocoderUnavailable")<{ readonly detail: string }> {}

/**
 * Turns a free-text location into coordinates (decisions D17 "Groups admin", "Matching"). The live layer is the
 * offline gazetteer by default and an HTTP geocoder when `GEOCODER_URL` is set; features depend on this port only.
 */
export class Geocoder extends Context.Tag("timebank/Geocoder")<Geocoder, {
  /** `None` when the place is unknown. */
  readonly geocode: (query: string) => Effect.Effect<Option.Option<GeoPoint>, GeocoderUnavailable>
}>() {}

/** Great-circle distance in kilometres between two points (haversine). */
export const distanceKm = (
  a: Pick<GeoPoint, "latitude" | "longitude">,
  b: Pick<GeoPoint, "latitude" | "longitude">
) => {
  const rad = (deg: number) => (deg * Math.PI) / 180
  const dLat = rad(b.latitude - a.latitude)
  const dLon = rad(b.longitude - a.longitude)
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(a.latitude)) * Math.cos(rad(b.latitude)) * Math.sin(dLon / 2) ** 2
  return 2 * 6371 * Math.asin(Math.min(1, Math.sqrt(h)))
}
