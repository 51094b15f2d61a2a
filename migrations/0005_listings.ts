import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // Categories serve listings, events, blog posts and volunteering opportunities alike (decisions D6).
  yield* sql`
    CREATE TABLE categories (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      type text NOT NULL CHECK (type IN ('listing', 'event', 'blog', 'vol_opportunity')),
      name text NOT NULL,
      slug text NOT NULL,
      color text,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
  // The name index also serves the lists (filter on type, order by lower(name)).
  yield* sql`CREATE UNIQUE INDEX categories_tenant_type_name ON categories (tenant_id, type, lower(name))`
  yield* sql`CREATE UNIQUE INDEX categories_tenant_type_slug ON categories (tenant_id, type, slug)`

  yield* sql`
    CREATE TABLE listing_attributes (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      name text NOT NULL,
      type text NOT NULL CHECK (type IN ('text', 'number', 'boolean', 'select')),
      options jsonb NOT NULL DEFAULT '[]',
      required boolean NOT NULL DEFAULT false,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE UNIQUE INDEX listing_attributes_tenant_name ON listing_attributes (tenant_id, lower(name))`

  // Deleted listings keep their row (deleted_at): ledger transactions may name them.
  yield* sql`
    CREATE TABLE listings (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      user_id bigint NOT NULL REFERENCES users (id),
      type text NOT NULL CHECK (type IN ('offer', 'request')),
      title text NOT NULL,
      description text NOT NULL,
      category_id bigint REFERENCES categories (id) ON DELETE SET NULL,
      hours_estimate numeric(8, 2) CHECK (hours_estimate > 0),
      location text,
      attributes jsonb NOT NULL DEFAULT '{}',
      status text NOT NULL CHECK (status IN ('pending', 'active')),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      deleted_at timestamptz
    )`
  // Public list (status = active, newest first), moderation queue (pending, oldest first: the same index read
  // backwards) and the per-status counts.
  yield* sql`CREATE INDEX listings_public ON listings (tenant_id, status, id DESC) WHERE deleted_at IS NULL`
  yield* sql`CREATE INDEX listings_public_type ON listings (tenant_id, status, type, id DESC)
             WHERE deleted_at IS NULL`
  // Admin list without a status filter.
  yield* sql`CREATE INDEX listings_tenant ON listings (tenant_id, id DESC) WHERE deleted_at IS NULL`
  // Category and owner filters (ids are unique across tenants); also category unassignment and the foreign keys.
  yield* sql`CREATE INDEX listings_category ON listings (category_id, id DESC)`
  yield* sql`CREATE INDEX listings_user ON listings (user_id, id DESC)`
})
