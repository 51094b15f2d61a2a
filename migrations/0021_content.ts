import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The community's help pages and blog (decisions D17 "Help"): FAQs that admins write, order and publish, and blog
 * posts (draft or published) addressed publicly by a slug unique in the community.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  yield* sql`
    CREATE TABLE help_faqs (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      question text NOT NULL,
      answer text NOT NULL,
      category text NOT NULL DEFAULT 'general',
      position integer NOT NULL DEFAULT 0,
      is_published boolean NOT NULL DEFAULT true,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
  // The admin list (position, then id) and the public help page (published, by category, then position and id).
  yield* sql`CREATE INDEX help_faqs_order ON help_faqs (tenant_id, position, id)`
  yield* sql`
    CREATE INDEX help_faqs_public ON help_faqs (tenant_id, category, position, id) WHERE is_published`

  yield* sql`
    CREATE TABLE blog_posts (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants (id),
      author_id bigint NOT NULL REFERENCES users (id),
      title text NOT NULL,
      slug text NOT NULL,
      excerpt text,
      content text NOT NULL,
      status text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'published')),
      published_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CHECK ((status = 'published') = (published_at IS NOT NULL)),
      UNIQUE (tenant_id, slug)
    )`
  // The admin list (newest first) and the public blog (published posts, latest publication first).
  yield* sql`CREATE INDEX blog_posts_admin ON blog_posts (tenant_id, id DESC)`
  yield* sql`
    CREATE INDEX blog_posts_public ON blog_posts (tenant_id, published_at DESC, id DESC)
    WHERE status = 'published'`
})
