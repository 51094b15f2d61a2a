import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE tenants (
      id bigserial PRIMARY KEY,
      slug text NOT NULL UNIQUE,
      name text NOT NULL,
      domain text,
      status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'suspended')),
      timezone text NOT NULL DEFAULT 'UTC',
      features jsonb NOT NULL DEFAULT '{}',
      settings jsonb NOT NULL DEFAULT '{}',
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE UNIQUE INDEX tenants_domain_key ON tenants (lower(domain)) WHERE domain IS NOT NULL`
  yield* sql`INSERT INTO tenants (slug, name) VALUES ('platform', 'Platform')`
})
