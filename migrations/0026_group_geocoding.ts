import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Geocoding of a group's `location` (decisions D17 "Groups admin"): its coordinates, when they were last asked
 * for and how that ended (`ok`, `not_found`, `failed`; NULL = never asked). A change of `location` by any statement
 * clears all four, unless the same statement sets the coordinates too: coordinates never describe an old location.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    ALTER TABLE groups
      ADD COLUMN latitude double precision CHECK (latitude BETWEEN -90 AND 90),
      ADD COLUMN longitude double precision CHECK (longitude BETWEEN -180 AND 180),
      ADD COLUMN geocoded_at timestamptz,
      ADD COLUMN geocode_status text CHECK (geocode_status IN ('ok', 'not_found', 'failed')),
      ADD CONSTRAINT groups_coordinates_paired CHECK ((latitude IS NULL) = (longitude IS NULL))`

  yield* sql`
    CREATE FUNCTION groups_clear_stale_coordinates() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.latitude IS NOT DISTINCT FROM OLD.latitude AND NEW.longitude IS NOT DISTINCT FROM OLD.longitude THEN
        NEW.latitude := NULL;
        NEW.longitude := NULL;
        NEW.geocoded_at := NULL;
        NEW.geocode_status := NULL;
      END IF;
      RETURN NEW;
    END $$`
  yield* sql`CREATE TRIGGER groups_location_changed BEFORE UPDATE OF location ON groups
             FOR EACH ROW WHEN (NEW.location IS DISTINCT FROM OLD.location)
             EXECUTE FUNCTION groups_clear_stale_coordinates()`

  // Batch geocoding of the groups still without coordinates (`only_missing`), oldest first.
  yield* sql`CREATE INDEX groups_geocode_missing ON groups (tenant_id, id)
             WHERE deleted_at IS NULL AND location IS NOT NULL AND latitude IS NULL`
})
