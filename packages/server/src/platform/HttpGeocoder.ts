import { Duration, Effect, Either, Layer, Option, Schema } from "effect"
import { Geocoder, GeocoderUnavailable, type GeoPoint } from "./Geocoder.js"

/**
 * The HTTP geocoder, used when `GEOCODER_URL` is set: any Nominatim-compatible service (Nominatim itself, or a
 * proxy in front of another provider that answers the same way).
 *
 * Contract: `GET {GEOCODER_URL}/search?q=<text>&format=json&limit=1` with `Accept: application/json` and our
 * `User-Agent`; the answer is a JSON array, empty when the place is unknown (→ None), else its first element
 * `{lat, lon, display_name?}` with `lat` and `lon` as numbers or numeric strings (Nominatim sends strings) in range.
 * Anything else — no answer within 5 s, a status other than 2xx, a body that is not such an array, more than 256 KB —
 * is `GeocoderUnavailable`: callers record the attempt as failed, never answer 5xx. A query string already in
 * `GEOCODER_URL` (an API key) is kept. Answers (found or not, never failures) are kept in a bounded in-memory cache
 * (1,000 queries, 24 h), so re-geocoding the same locations does not ask again.
 */

export const GEOCODER_TIMEOUT = Duration.seconds(5)
export const GEOCODER_MAX_ANSWER_BYTES = 256 * 1024
export const GEOCODER_CACHE_CAPACITY = 1_000
export const GEOCODER_CACHE_TTL = Duration.hours(24)

export interface HttpGeocoderOptions {
  /** `GEOCODER_URL`: the service's base; `/search` is added to its path. */
  readonly baseUrl: string
  readonly userAgent: string
  readonly timeout?: Duration.DurationInput
  readonly cacheCapacity?: number
  readonly cacheTtl?: Duration.DurationInput
}

const Coordinate = (min: number, max: number) =>
  Schema.Union(Schema.Number, Schema.NumberFromString).pipe(Schema.filter((n) => n >= min && n <= max))

/** The first element of a Nominatim answer: only what we read of it. */
const NominatimPlace = Schema.Struct({
  lat: Coordinate(-90, 90),
  lon: Coordinate(-180, 180),
  display_name: Schema.optional(Schema.String)
})
const decodeAnswer = Schema.decodeUnknownEither(Schema.Array(Schema.Unknown))
const decodePlace = Schema.decodeUnknownEither(NominatimPlace)

/** What the answer's body says: a point, nothing, or why it is not an answer. */
export const parseNominatim = (body: string, query: string): Either.Either<Option.Option<GeoPoint>, string> => {
  let json: unknown
  try {
    json = JSON.parse(body)
  } catch {
    return Either.left("the answer is not JSON")
  }
  const list = decodeAnswer(json)
  if (Either.isLeft(list)) return Either.left("the answer is not a JSON array")
  if (list.right.length === 0) return Either.right(Option.none())
  const place = decodePlace(list.right[0])
  if (Either.isLeft(place)) return Either.left("the first place has no valid lat and lon")
  const { display_name, lat, lon } = place.right
  return Either.right(Option.some({ latitude: lat, longitude: lon, label: display_name ?? query }))
}

/** `{base}/search?q=…&format=json&limit=1`, keeping the base's own path and query. */
export const searchUrl = (base: URL, query: string): URL => {
  const url = new URL(base)
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/search`
  url.searchParams.set("q", query)
  url.searchParams.set("format", "json")
  url.searchParams.set("limit", "1")
  return url
}

/** The body as text, refusing more than `max` bytes. */
const readCapped = async (response: Response, max: number): Promise<string> => {
  const reader = response.body?.getReader()
  if (reader === undefined) return ""
  const chunks: Array<Uint8Array> = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.length
    if (size > max) {
      await reader.cancel()
      throw new Error(`the answer is larger than ${max} bytes`)
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks).toString("utf8")
}

/** A bounded map of answers, oldest dropped first, each kept for `ttlMs`. */
const answerCache = (capacity: number, ttlMs: number) => {
  const entries = new Map<string, { readonly answer: Option.Option<GeoPoint>; readonly until: number }>()
  return {
    get: (key: string): Option.Option<Option.Option<GeoPoint>> => {
      const entry = entries.get(key)
      if (entry === undefined) return Option.none()
      entries.delete(key)
      if (entry.until < Date.now()) return Option.none()
      entries.set(key, entry)
      return Option.some(entry.answer)
    },
    set: (key: string, answer: Option.Option<GeoPoint>) => {
      entries.delete(key)
      entries.set(key, { answer, until: Date.now() + ttlMs })
      if (entries.size > capacity) entries.delete(entries.keys().next().value!)
    }
  }
}

const unavailable = (detail: string) => new GeocoderUnavailable({ detail })

/** The geocoder on `options.baseUrl`; dies when the URL is not an http(s) URL (a configuration error). */
export const makeHttpGeocoder = (options: HttpGeocoderOptions) =>
  Effect.gen(function*() {
    const base = yield* Effect.try(() => new URL(options.baseUrl)).pipe(
      Effect.filterOrFail((url) => url.protocol === "http:" || url.protocol === "https:"),
      Effect.orDieWith(() => new Error(`GEOCODER_URL is not an http(s) URL: ${options.baseUrl}`))
    )
    const timeout = Duration.decode(options.timeout ?? GEOCODER_TIMEOUT)
    const cache = answerCache(
      options.cacheCapacity ?? GEOCODER_CACHE_CAPACITY,
      Duration.toMillis(options.cacheTtl ?? GEOCODER_CACHE_TTL)
    )

    const ask = (query: string) =>
      Effect.tryPromise({
        try: async (signal) => {
          const response = await fetch(searchUrl(base, query), {
            signal,
            headers: { accept: "application/json", "user-agent": options.userAgent }
          })
          if (!response.ok) {
            await response.body?.cancel()
            return Either.left(`the geocoder answered HTTP ${response.status}`)
          }
          return parseNominatim(await readCapped(response, GEOCODER_MAX_ANSWER_BYTES), query)
        },
        catch: (e) => unavailable(`the geocoder could not be asked: ${e instanceof Error ? e.message : String(e)}`)
      }).pipe(
        Effect.flatMap(Either.match({ onLeft: (why) => Effect.fail(unavailable(why)), onRight: Effect.succeed })),
        Effect.timeoutFail({
          duration: timeout,
          onTimeout: () => unavailable(`the geocoder gave no answer within ${Duration.format(timeout)}`)
        })
      )

    const geocode = (text: string): Effect.Effect<Option.Option<GeoPoint>, GeocoderUnavailable> => {
      const query = text.replace(/\s+/g, " ").trim()
      if (query === "") return Effect.succeed(Option.none())
      const key = query.toLowerCase()
      return Option.match(cache.get(key), {
        onSome: Effect.succeed,
        onNone: () => Effect.tap(ask(query), (answer) => cache.set(key, answer))
      }).pipe(Effect.withSpan("Geocoder.http"))
    }

    return Geocoder.of({ geocode })
  })

export const httpGeocoderLayer = (options: HttpGeocoderOptions) => Layer.effect(Geocoder, makeHttpGeocoder(options))
