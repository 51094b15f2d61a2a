import { assert, describe, it } from "@effect/vitest"
import { readdirSync, readFileSync } from "node:fs"
import { dirname, join, relative, resolve, sep } from "node:path"

/**
 * The rules of docs/architecture.md that the compiler cannot see, checked over the source text: a feature reads
 * another feature only through its services, rows are decoded rather than cast, files stay small, the contract
 * package stays free of server code.
 */

const root = resolve(import.meta.dirname, "..")
const serverSrc = join(root, "packages/server/src")
const MAX_LINES = 400

const sourceFiles = (dir: string): ReadonlyArray<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    // `generated/` holds what `npm run generate` writes (the client's OpenAPI types): not ours to shape, not committed.
    if (entry.isDirectory()) return entry.name === "generated" ? [] : sourceFiles(path)
    return entry.name.endsWith(".ts") ? [path] : []
  })

const packageFiles = readdirSync(join(root, "packages")).flatMap((pkg) =>
  sourceFiles(join(root, "packages", pkg, "src"))
)

const relativeImports = (file: string): ReadonlyArray<string> =>
  [...readFileSync(file, "utf8").matchAll(/^\s*(?:import|export)\b[^"']*?from\s+["'](\.{1,2}\/[^"']+)["']/gm)].map(
    (match) => resolve(dirname(file), match[1]!)
  )

/** The feature folder a server file belongs to (`events` for events/rsvp/X.ts), or undefined for top-level files. */
const featureOf = (file: string): string | undefined => {
  const parts = relative(serverSrc, file).split(sep)
  return parts.length > 1 ? parts[0] : undefined
}

/** What a feature keeps to itself: its repositories and the rows they read. */
const isPrivateToFeature = (file: string) => /(Repo|Record|Rows?)\.(js|ts)$/.test(file)

const SHARED = new Set(["platform"])

/** Who owns each table: only that feature's SQL names it. */
const TABLES: Record<string, ReadonlyArray<string>> = {
  platform: [
    "outbox_events",
    "outbox_cursors",
    "outbox_dead_letters",
    "schema_migrations",
    "admin_audit_log",
    "cache_runner_stats"
  ],
  tenancy: ["tenants", "tenant_config_documents"],
  system: ["job_runs", "job_schedules", "job_tenant_settings"],
  identity: [
    "users",
    "auth_sessions",
    "access_tokens",
    "refresh_tokens",
    "user_consents",
    "mail_outbox",
    "password_reset_tokens"
  ],
  ledger: ["ledger_accounts", "ledger_transactions", "ledger_entries"],
  listings: ["categories", "listing_attributes", "listings"],
  volunteering: [
    "vol_organisations",
    "vol_organisation_members",
    "vol_opportunities",
    "vol_applications",
    "vol_hours",
    "reviews"
  ],
  events: [
    "event_series",
    "events",
    "event_polls",
    "event_rsvps",
    "event_waitlist",
    "event_reminders",
    "event_recurrence_rules",
    "event_reminder_deliveries"
  ],
  polls: ["polls", "poll_options", "poll_votes"],
  messaging: ["message_threads", "messages", "message_thread_members"],
  connections: ["connections"],
  groups: ["group_types", "groups", "group_members", "group_messages"],
  feed: ["feed_posts", "feed_likes", "feed_comments"],
  moderation: ["member_reports"],
  gamification: ["gamification_tenants", "badges", "user_badges", "gamification_campaigns", "gamification_xp"],
  matching: ["matching_profiles", "matching_settings", "matching_computations", "matching_matches"],
  content: ["help_faqs", "blog_posts"],
  federation: [
    "federation_platform",
    "federation_tenant_settings",
    "federation_partners",
    "federation_api_keys",
    "federation_nonces",
    "federation_deliveries",
    "federation_delivery_attempts",
    "federation_webhook_receipts",
    "federation_member_accounts",
    "federation_jsonapi_transfers",
    "federation_cc_chains",
    "federation_cc_relays",
    "federation_outbound_transfers",
    "federation_transactions",
    "federation_messages",
    "federated_records"
  ],
  notifications: [
    "notifications",
    "notification_settings",
    "user_mutes",
    "notification_email_queue",
    "push_subscriptions",
    "push_log",
    "signing_keys"
  ]
}
const ownerOf = new Map(Object.entries(TABLES).flatMap(([feature, tables]) => tables.map((t) => [t, feature])))

/** Tables a file's SQL reads or writes (`FROM t`, `JOIN t`, `INTO t`, `UPDATE t`), with their line numbers. */
const tablesIn = (text: string) =>
  [...text.matchAll(/\b(?:FROM|JOIN|INTO|UPDATE)\s+([a-z_]+)\b/g)].flatMap((m) =>
    ownerOf.has(m[1]!) ? [{ table: m[1]!, line: text.slice(0, m.index).split("\n").length }] : []
  )

describe("architecture", () => {
  it("a feature never imports another feature's repository or rows", () => {
    const offences = sourceFiles(serverSrc).flatMap((file) => {
      const from = featureOf(file)
      if (from === undefined || SHARED.has(from)) return []
      return relativeImports(file)
        .filter((target) => {
          const to = featureOf(target)
          return to !== undefined && to !== from && !SHARED.has(to) && isPrivateToFeature(target)
        })
        .map((target) => `${relative(root, file)} → ${relative(root, target)}`)
    })
    assert.deepStrictEqual(offences, [])
  })

  it("a feature's SQL names only its own tables (and platform's)", () => {
    const offences = sourceFiles(serverSrc).flatMap((file) => {
      const from = featureOf(file)
      if (from === undefined || SHARED.has(from)) return []
      return tablesIn(readFileSync(file, "utf8"))
        .filter(({ table }) => ownerOf.get(table) !== from && ownerOf.get(table) !== "platform")
        .map(({ line, table }) => `${relative(root, file)}:${line} → ${table}`)
    })
    assert.deepStrictEqual(offences, [])
  })

  it("every table the migrations create has an owner", () => {
    const created = readdirSync(join(root, "migrations"))
      .filter((f) => /^\d{4}_.*\.ts$/.test(f))
      .flatMap((
        f
      ) => [
        ...readFileSync(join(root, "migrations", f), "utf8").matchAll(/CREATE TABLE (?:IF NOT EXISTS )?([a-z_]+)/g)
      ])
      .map((m) => m[1]!)
    assert.deepStrictEqual(created.filter((t) => !ownerOf.has(t)), [])
  })

  it("platform code depends on no feature", () => {
    const offences = sourceFiles(join(serverSrc, "platform")).flatMap((file) =>
      relativeImports(file)
        .filter((target) => {
          const to = featureOf(target)
          return to !== undefined && !SHARED.has(to)
        })
        .map((target) => `${relative(root, file)} → ${relative(root, target)}`)
    )
    assert.deepStrictEqual(offences, [])
  })

  it("the contract package imports nothing from the server", () => {
    const offences = sourceFiles(join(root, "packages/domain/src")).filter((file) =>
      /from\s+["'](@timebank\/server|[./]+server\/)/.test(readFileSync(file, "utf8"))
    )
    assert.deepStrictEqual(offences.map((f) => relative(root, f)), [])
  })

  it("repositories decode rows instead of casting them", () => {
    const offences = packageFiles.filter((file) => /Number\(rows?\b/.test(readFileSync(file, "utf8")))
    assert.deepStrictEqual(offences.map((f) => relative(root, f)), [])
  })

  it(`no source file in packages/ is over ${MAX_LINES} lines`, () => {
    const offences = packageFiles
      .map((file) => ({ file: relative(root, file), lines: readFileSync(file, "utf8").split("\n").length - 1 }))
      .filter((f) => f.lines > MAX_LINES)
    assert.deepStrictEqual(offences, [])
  })
})
