import {
  type BatchGeocodePayload,
  type BatchGeocodeReport,
  type BatchGeocodeResult,
  GeocodedGroup,
  type GroupId,
  MAX_BATCH_GEOCODE,
  ValidationFailed
} from "@timebank/domain"
import { DateTime, Effect, Option } from "effect"
import { Geocoder, type GeoPoint } from "../../platform/Geocoder.js"
import { TenantAdmin } from "../../platform/Policy.js"
import { GroupRepo } from "../GroupRepo.js"
import { groupNotFound } from "../GroupsPolicy.js"
import { GroupViews } from "../GroupViews.js"
import { type GeocodeAnswer, type GeocodeTargetRow, GroupGeocodeRepo } from "./GroupGeocodeRepo.js"

/** What the geocoder said about one location. */
type Lookup =
  | { readonly status: "ok"; readonly point: GeoPoint }
  | { readonly status: "not_found" }
  | { readonly status: "failed"; readonly detail: string }

/** Locations asked at once in a batch (the offline gazetteer answers at once; an HTTP geocoder is asked 4 at a time). */
const BATCH_CONCURRENCY = 4

/** After this many failures with no success in between, a batch stops asking and reports the rest failed. */
const BATCH_FAILURES_TO_STOP = 3

const answerOf = (target: GeocodeTargetRow & { readonly location: string }, lookup: Lookup): GeocodeAnswer => ({
  id: target.id,
  location: target.location,
  status: lookup.status,
  latitude: lookup.status === "ok" ? lookup.point.latitude : null,
  longitude: lookup.status === "ok" ? lookup.point.longitude : null
})

const resultOf = (id: number, lookup: Lookup): BatchGeocodeResult =>
  lookup.status === "ok"
    ? {
      group_id: id,
      status: "ok",
      latitude: lookup.point.latitude,
      longitude: lookup.point.longitude,
      label: lookup.point.label
    }
    : lookup.status === "failed"
    ? { group_id: id, status: "failed", reason: lookup.detail }
    : { group_id: id, status: "not_found" }

const skipped = (id: number, reason: string): BatchGeocodeResult => ({ group_id: id, status: "skipped", reason })

const hasLocation = (target: GeocodeTargetRow): target is GeocodeTargetRow & { readonly location: string } =>
  target.location !== null

/**
 * Geocoding groups' locations for admins (decisions D17 "Groups admin"): the answer is written on the group
 * (coordinates, status, time) only while the group still has the location that was looked up. Coordinates never
 * outlive their location: a new location clears them in the database (migration 0026); admins geocode again.
 */
export class GroupGeocodingService extends Effect.Service<GroupGeocodingService>()("GroupGeocodingService", {
  dependencies: [GroupGeocodeRepo.Default, GroupRepo.Default, GroupViews.Default],
  effect: Effect.gen(function*() {
    const repo = yield* GroupGeocodeRepo
    const groups = yield* GroupRepo
    const views = yield* GroupViews
    const geocoder = yield* Geocoder

    const lookUp = (location: string): Effect.Effect<Lookup> =>
      geocoder.geocode(location).pipe(
        Effect.map(Option.match({
          onNone: (): Lookup => ({ status: "not_found" }),
          onSome: (point): Lookup => ({ status: "ok", point })
        })),
        Effect.catchTag("GeocoderUnavailable", (e) =>
          Effect.as(
            Effect.logWarning("geocoder unavailable", { detail: e.detail }),
            {
              status: "failed",
              detail: e.detail
            } satisfies Lookup
          ))
      )

    const geocode = Effect.fn("GroupGeocoding.geocode")(function*(id: GroupId) {
      const admin = yield* TenantAdmin
      const target = yield* Effect.flatMap(
        repo.target(id),
        Option.match({ onNone: () => Effect.fail(groupNotFound()), onSome: Effect.succeed })
      )
      if (!hasLocation(target)) {
        return yield* ValidationFailed.field("location", "the group has no location to geocode")
      }
      const lookup = yield* lookUp(target.location)
      const written = yield* repo.record([answerOf(target, lookup)])
      const row = yield* Effect.flatMap(
        groups.findById(id),
        Option.match({ onNone: () => Effect.fail(groupNotFound()), onSome: Effect.succeed })
      )
      const state = yield* repo.state(id)
      const view = yield* views.group(row, admin.userId)
      return GeocodedGroup.make({
        ...view,
        geocode_status: Option.match(state, { onNone: () => null, onSome: (s) => s.geocode_status }),
        geocoded_at: Option.match(state, {
          onNone: () => null,
          onSome: (s) => (s.geocoded_at === null ? null : DateTime.unsafeFromDate(s.geocoded_at))
        }),
        geocoded_as: lookup.status === "ok" && written.length > 0 ? lookup.point.label : null
      })
    })

    /** Looks the locations up, stopping after repeated failures (a geocoder that is down is not asked 500 times). */
    const lookUpAll = (todo: ReadonlyArray<GeocodeTargetRow & { readonly location: string }>) =>
      Effect.suspend(() => {
        let failuresInARow = 0
        return Effect.forEach(todo, (target) => {
          if (failuresInARow >= BATCH_FAILURES_TO_STOP) {
            return Effect.succeed<Lookup>({
              status: "failed",
              detail: `not asked: the geocoder failed ${BATCH_FAILURES_TO_STOP} times in a row`
            })
          }
          return Effect.tap(lookUp(target.location), (lookup) => {
            failuresInARow = lookup.status === "failed" ? failuresInARow + 1 : 0
          })
        }, { concurrency: BATCH_CONCURRENCY })
      })

    const batch = Effect.fn("GroupGeocoding.batch")(function*(input: BatchGeocodePayload) {
      yield* TenantAdmin
      const onlyMissing = input?.only_missing ?? false
      const ids = input?.group_ids === undefined ? undefined : [...new Set(input.group_ids)]
      const found = ids === undefined
        ? yield* repo.selected(onlyMissing, MAX_BATCH_GEOCODE)
        : yield* repo.targets(ids)
      const remaining = ids === undefined
        ? Math.max(0, (yield* repo.countSelected(onlyMissing)) - found.length)
        : 0
      const byId = new Map(found.map((t) => [t.id as number, t]))
      const order = ids ?? found.map((t) => t.id)

      const todo = found.filter(hasLocation).filter((t) => !onlyMissing || t.latitude === null)
      const lookups = yield* lookUpAll(todo)
      const written = new Set<number>(yield* repo.record(todo.map((t, i) => answerOf(t, lookups[i]!))))
      const outcome = new Map(todo.map((t, i) => [t.id as number, lookups[i]!]))

      const results = order.map((id): BatchGeocodeResult => {
        const target = byId.get(id)
        if (target === undefined) return skipped(id, "no such group in this community")
        if (target.location === null) return skipped(id, "the group has no location")
        const lookup = outcome.get(id)
        if (lookup === undefined) return skipped(id, "already geocoded")
        if (!written.has(id)) return skipped(id, "the group's location changed or it was deleted meanwhile")
        return resultOf(id, lookup)
      })
      const count = (status: BatchGeocodeResult["status"]) => results.filter((r) => r.status === status).length
      return {
        results,
        geocoded: count("ok"),
        not_found: count("not_found"),
        failed: count("failed"),
        skipped: count("skipped"),
        remaining
      } satisfies BatchGeocodeReport
    })

    return { geocode, batch } as const
  })
}) {}
