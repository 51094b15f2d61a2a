import { Effect, Layer, Option } from "effect"
import { AppConfig } from "./AppConfig.js"
import { httpGeocoderLayer } from "./HttpGeocoder.js"
import { OfflineGeocoderLive } from "./OfflineGazetteer.js"

/**
 * The process's `Geocoder` (decisions D17): the HTTP geocoder when `GEOCODER_URL` is set (not blank), the offline
 * gazetteer otherwise. One per process (ServicesLive), so its cache or index is shared by every feature.
 */
export const GeocoderLive = Layer.unwrapEffect(Effect.gen(function*() {
  const config = yield* AppConfig
  return Option.match(Option.filter(Option.map(config.geocoderUrl, (url) => url.trim()), (url) => url !== ""), {
    onNone: () => OfflineGeocoderLive,
    onSome: (baseUrl) => httpGeocoderLayer({ baseUrl, userAgent: `timebank-geocoder/1 (+${config.publicUrl})` })
  })
}))
