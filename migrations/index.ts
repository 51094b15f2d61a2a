import type { SqlClient } from "@effect/sql"
import type { Effect } from "effect"
import m0001 from "./0001_tenants.js"
import m0002 from "./0002_outbox.js"
import m0003 from "./0003_identity.js"
import m0004 from "./0004_ledger.js"
import m0005 from "./0005_listings.js"
import m0006 from "./0006_volunteering.js"
import m0007 from "./0007_events.js"
import m0008 from "./0008_recurrence.js"
import m0009 from "./0009_outbox_parking.js"
import m0010 from "./0010_notifications.js"
import m0011 from "./0011_messaging.js"
import m0012 from "./0012_connections.js"
import m0013 from "./0013_groups.js"
import m0014 from "./0014_feed.js"
import m0015 from "./0015_moderation.js"
import m0016 from "./0016_federation.js"
import m0017 from "./0017_federation_adapters.js"
import m0018 from "./0018_admin_catalogue.js"
import m0019 from "./0019_outbox_tenant_index.js"
import m0020 from "./0020_dashboard_indexes.js"
import m0021 from "./0021_content.js"
import m0022 from "./0022_moderation_admin.js"
import m0023 from "./0023_funder_reports.js"
import m0024 from "./0024_gamification.js"
import m0025 from "./0025_groups_admin.js"
import m0026 from "./0026_group_geocoding.js"
import m0027 from "./0027_group_type_policies.js"
import m0028 from "./0028_matching.js"
import m0029 from "./0029_listing_category_index.js"
import m0030 from "./0030_outbox_trace_parent.js"
import m0031 from "./0031_outbound_transfers_pending.js"

/** Forward-only migrations, in order. A landed migration is never edited; add a new one. */
export const migrations: Record<string, Effect.Effect<void, unknown, SqlClient.SqlClient>> = {
  "0001_tenants": m0001,
  "0002_outbox": m0002,
  "0003_identity": m0003,
  "0004_ledger": m0004,
  "0005_listings": m0005,
  "0006_volunteering": m0006,
  "0007_events": m0007,
  "0008_recurrence": m0008,
  "0009_outbox_parking": m0009,
  "0010_notifications": m0010,
  "0011_messaging": m0011,
  "0012_connections": m0012,
  "0013_groups": m0013,
  "0014_feed": m0014,
  "0015_moderation": m0015,
  "0016_federation": m0016,
  "0017_federation_adapters": m0017,
  "0018_admin_catalogue": m0018,
  "0019_outbox_tenant_index": m0019,
  "0020_dashboard_indexes": m0020,
  "0021_content": m0021,
  "0022_moderation_admin": m0022,
  "0023_funder_reports": m0023,
  "0024_gamification": m0024,
  "0025_groups_admin": m0025,
  "0026_group_geocoding": m0026,
  "0027_group_type_policies": m0027,
  "0028_matching": m0028,
  "0029_listing_category_index": m0029,
  "0030_outbox_trace_parent": m0030,
  "0031_outbound_transfers_pending": m0031
}
