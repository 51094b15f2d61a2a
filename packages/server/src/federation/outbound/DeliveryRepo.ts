import { SqlClient } from "@effect/sql"
import type { Fragment } from "@effect/sql/Statement"
import { PartnerProtocol } from "@timebank/domain"
import { Duration, Effect, Option, Schema } from "effect"
import { pgArray } from "../../platform/SqlArrays.js"
import { DbDate, DbInt, decodeFirst, decodeRows, decodeSingle } from "../../platform/SqlRows.js"
import { dieOnSqlError } from "../../platform/TenantSql.js"
import type { DeliverySettings } from "./DeliveryConfig.js"
import { WebhookDialects } from "./WebhookDialects.js"

export const DeliveryStatus = Schema.Literal("pending", "delivered", "retrying", "dead")
export type DeliveryStatus = typeof DeliveryStatus.Type

/** A delivery as the admin routes show it. */
export const DeliveryRow = Schema.Struct({
  id: DbInt,
  partner_id: DbInt,
  webhook_id: Schema.String,
  event: Schema.String,
  status: DeliveryStatus,
  attempts: DbInt,
  last_status_code: Schema.NullOr(DbInt),
  last_error: Schema.NullOr(Schema.String),
  next_attempt_at: DbDate,
  created_at: DbDate,
  delivered_at: Schema.NullOr(DbDate)
})
export type DeliveryRow = typeof DeliveryRow.Type

/** A delivery claimed for sending: what goes on the wire. */
export const ClaimedDelivery = Schema.Struct({
  id: DbInt,
  partner_id: DbInt,
  webhook_id: Schema.String,
  event: Schema.String,
  body: Schema.Struct({ tenant: Schema.Unknown, occurred_at: Schema.String, data: Schema.Unknown })
})
export type ClaimedDelivery = typeof ClaimedDelivery.Type

/**
 * A partner as its sender needs it, with the switches above it read in the same statement (fresh, not cached):
 * `federation_on` = platform switch and whitelist; `breaker` closed, open, or half-open (its time is up: one probe).
 */
export const SendingPartner = Schema.Struct({
  id: DbInt,
  tenant_id: DbInt,
  protocol_type: PartnerProtocol,
  status: Schema.Literal("pending", "active", "suspended", "failed"),
  base_url: Schema.String,
  webhook_url: Schema.NullOr(Schema.String),
  breaker: Schema.Literal("closed", "open", "half_open"),
  federation_on: Schema.Boolean,
  toggles: Schema.Record({ key: Schema.String, value: Schema.Unknown })
})
export type SendingPartner = typeof SendingPartner.Type

/** What one attempt came to. */
export interface AttemptResult {
  readonly statusCode: number | null
  readonly latencyMs: number
  readonly error: string | null
}

const seconds = (d: Duration.Duration) => Duration.toMillis(d) / 1000

const DELIVERY_COLUMNS =
  "id, partner_id, webhook_id::text AS webhook_id, event, status, attempts, last_status_code, last_error, " +
  "next_attempt_at, created_at, delivered_at"

/**
 * The SQL of outbound webhook deliveries (decisions D13). The worker's statements run outside any request and
 * name partners and deliveries by id across communities; the admin's are scoped to a community by `tenantId`.
 */
export class DeliveryRepo extends Effect.Service<DeliveryRepo>()("FederationDeliveryRepo", {
  dependencies: [WebhookDialects.Default],
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    /** The partners that may receive webhooks at all (WebhookDialects: protocol, credentials, URL). */
    const receiving = (yield* WebhookDialects).receiving

    /**
     * Runs `statements` in a transaction whose commit does not wait for the WAL flush. Safe here: a delivery row
     * lost in a crash belongs to an event whose subscriber cursor (saved later, durably, which flushes the WAL up to
     * it) has not moved past it, so the event is handled again; a lost attempt record means a resend, which
     * receivers deduplicate on the webhook id. Waiting for a flush per event would bound the fan-out to the disk.
     */
    const withoutFlush = <A, E, R>(statements: Effect.Effect<A, E, R>) =>
      sql.withTransaction(Effect.zipRight(sql`SET LOCAL synchronous_commit = off`, statements))

    /**
     * One delivery per eligible partner of the community for each of `webhooks` (an outbox batch's, in commit
     * order), in ONE statement, idempotent on (partner, outbox event): federation on (platform switch, whitelist),
     * the event's toggle on (none: a retraction), the partner receiving (its protocol's credentials), and every
     * member the webhook names among `optedIn` (identity's opted-in members). The webhook id is the row's own UUID,
     * repeated in the body. Delivery ids follow the events' order.
     */
    const enqueue = (input: {
      readonly tenant: { readonly id: number; readonly slug: string }
      readonly webhooks: ReadonlyArray<{
        readonly event: string
        readonly toggle: string | null
        readonly sourceKey: string
        readonly occurredAt: Date
        readonly data: unknown
        readonly members: ReadonlyArray<number>
      }>
      readonly optedIn: Fragment
    }) =>
      input.webhooks.length === 0 ? Effect.void : sql`
        WITH ev AS (
          SELECT x.value ->> 'event' AS event, x.value ->> 'toggle' AS toggle, x.value ->> 'source_key' AS source_key,
                 x.value ->> 'occurred_at' AS occurred_at, x.value -> 'data' AS data, x.value -> 'members' AS members,
                 x.n
          FROM jsonb_array_elements(${
        JSON.stringify(input.webhooks.map((w) => ({
          event: w.event,
          toggle: w.toggle,
          source_key: w.sourceKey,
          occurred_at: w.occurredAt.toISOString(),
          data: w.data,
          members: w.members
        })))
      }::jsonb) WITH ORDINALITY AS x (value, n)
        ), opted AS (SELECT o.user_id FROM (${input.optedIn}) o)
        INSERT INTO federation_deliveries (tenant_id, partner_id, webhook_id, event, body, source_key)
        SELECT e.tenant_id, e.partner_id, e.webhook_id, e.event,
               jsonb_build_object('id', e.webhook_id, 'event', e.event, 'tenant', ${
        JSON.stringify(input.tenant)
      }::jsonb, 'occurred_at', e.occurred_at, 'data', e.data),
               e.source_key
        FROM (
          SELECT p.id AS partner_id, p.tenant_id, ev.event, ev.source_key, ev.occurred_at, ev.data, ev.n,
                 gen_random_uuid() AS webhook_id
          FROM ev
          JOIN federation_partners p ON p.tenant_id = ${input.tenant.id}
          JOIN federation_platform fp ON fp.enabled
          JOIN federation_tenant_settings s ON s.tenant_id = p.tenant_id AND s.whitelisted
          WHERE ${sql.literal(receiving)}
            AND (ev.toggle IS NULL OR coalesce((s.toggles ->> ev.toggle)::boolean, false))
            AND NOT EXISTS (
              SELECT 1 FROM jsonb_array_elements_text(ev.members) m (id)
              WHERE m.id::bigint NOT IN (SELECT user_id FROM opted))
            -- Last: any row written passed it, so this statement's commit does not wait for the WAL flush (see
            -- withoutFlush for why that is safe).
            AND set_config('synchronous_commit', 'off', true) IS NOT NULL
        ) e
        ORDER BY e.n, e.partner_id
        ON CONFLICT (partner_id, source_key) DO NOTHING`.pipe(Effect.asVoid, dieOnSqlError)

    /** No member at all, as the `optedIn` of webhooks that name none. */
    const nobody = sql`SELECT NULL::bigint AS user_id WHERE false`

    /** Partners with a delivery due now (not held by a sender), federation on, breaker not open. */
    const duePartners = sql`
      SELECT p.id FROM federation_partners p
      JOIN federation_platform fp ON fp.enabled
      JOIN federation_tenant_settings s ON s.tenant_id = p.tenant_id AND s.whitelisted
      WHERE ${sql.literal(receiving)}
        AND (p.breaker_open_until IS NULL OR p.breaker_open_until <= now())
        AND EXISTS (
          SELECT 1 FROM federation_deliveries d
          WHERE d.partner_id = p.id AND d.status IN ('pending', 'retrying') AND d.next_attempt_at <= now()
            AND (d.claimed_until IS NULL OR d.claimed_until <= now()))`.pipe(
      decodeRows(Schema.Struct({ id: DbInt })),
      Effect.map((rows) => rows.map((r) => r.id)),
      dieOnSqlError
    )

    const sendingPartner = (where: Fragment) =>
      sql`
        SELECT p.id, p.tenant_id, p.protocol_type, p.status, p.base_url, p.webhook_url,
               CASE WHEN p.breaker_open_until IS NULL THEN 'closed'
                    WHEN p.breaker_open_until > now() THEN 'open' ELSE 'half_open' END AS breaker,
               (fp.enabled AND coalesce(s.whitelisted, false)) AS federation_on,
               coalesce(s.toggles, '{}'::jsonb) AS toggles
        FROM federation_partners p
        CROSS JOIN federation_platform fp
        LEFT JOIN federation_tenant_settings s ON s.tenant_id = p.tenant_id
        WHERE ${where} AND p.deleted_at IS NULL`.pipe(decodeFirst(SendingPartner), dieOnSqlError)

    /** A partner by id (the worker's), not deleted. */
    const partner = (partnerId: number) => sendingPartner(sql`p.id = ${partnerId}`)

    /** Up to `limit` due deliveries of the partner among `events`, oldest due first, held for `lease`. */
    const claim = (partnerId: number, events: ReadonlyArray<string>, limit: number, lease: Duration.Duration) =>
      sql`
        UPDATE federation_deliveries d SET claimed_until = now() + make_interval(secs => ${seconds(lease)})
        WHERE d.id IN (
          SELECT id FROM federation_deliveries
          WHERE partner_id = ${partnerId} AND status IN ('pending', 'retrying') AND next_attempt_at <= now()
            AND (claimed_until IS NULL OR claimed_until <= now()) AND event = ANY(${pgArray(events)}::text[])
          ORDER BY next_attempt_at, id LIMIT ${limit} FOR UPDATE SKIP LOCKED)
        RETURNING d.id, d.partner_id, d.webhook_id::text AS webhook_id, d.event, d.body`.pipe(
        decodeRows(ClaimedDelivery),
        Effect.map((rows) => [...rows].sort((a, b) => a.id - b.id)),
        dieOnSqlError
      )

    /** An admin's retry: holds a `dead` or `retrying` delivery unless a sender holds it already. */
    const claimForRetry = (deliveryId: number, lease: Duration.Duration) =>
      sql`
        UPDATE federation_deliveries SET claimed_until = now() + make_interval(secs => ${seconds(lease)})
        WHERE id = ${deliveryId} AND status IN ('dead', 'retrying')
          AND (claimed_until IS NULL OR claimed_until <= now())
        RETURNING id, partner_id, webhook_id::text AS webhook_id, event, body`.pipe(
        decodeFirst(ClaimedDelivery),
        dieOnSqlError
      )

    /** Lets go of claimed rows that were not sent (the breaker opened meanwhile). */
    const release = (ids: ReadonlyArray<number>) =>
      ids.length === 0 ? Effect.void : sql`
        UPDATE federation_deliveries SET claimed_until = NULL WHERE id = ANY(${pgArray(ids)}::bigint[])`.pipe(
        Effect.asVoid,
        dieOnSqlError
      )

    /**
     * 2xx answers: the deliveries are `delivered`, their attempts recorded, and their partners' breakers closed (a
     * partner row is written only when its breaker was not closed: a healthy partner's row is never touched).
     */
    const recordSuccesses = (successes: ReadonlyArray<{ readonly id: number; readonly result: AttemptResult }>) =>
      successes.length === 0 ? Effect.void : sql`
        WITH r AS (
          SELECT * FROM unnest(${pgArray(successes.map((s) => s.id))}::bigint[],
                               ${pgArray(successes.map((s) => s.result.statusCode))}::int[],
                               ${pgArray(successes.map((s) => s.result.latencyMs))}::int[]) AS r (id, code, latency)
        ), d AS (
          UPDATE federation_deliveries f
          SET status = 'delivered', attempts = f.attempts + 1, last_status_code = r.code, last_error = NULL,
              delivered_at = now(), claimed_until = NULL
          FROM r WHERE f.id = r.id RETURNING f.id, f.partner_id
        ), a AS (
          INSERT INTO federation_delivery_attempts (delivery_id, status_code, latency_ms, error)
          SELECT r.id, r.code, r.latency, NULL FROM r JOIN d ON d.id = r.id
        )
        UPDATE federation_partners p
        SET consecutive_failures = 0, breaker_open_until = NULL,
            status = CASE WHEN p.status = 'failed' THEN 'active' ELSE p.status END,
            updated_at = CASE WHEN p.status = 'failed' THEN now() ELSE p.updated_at END
        FROM (SELECT DISTINCT partner_id FROM d) x
        WHERE p.id = x.partner_id
          AND (p.consecutive_failures <> 0 OR p.breaker_open_until IS NOT NULL OR p.status = 'failed')`.pipe(
        withoutFlush,
        Effect.asVoid,
        dieOnSqlError
      )

    /**
     * A failed attempt: `retrying` after `retryBase` × 2ⁿ (capped), or `dead` at the last attempt; the partner's
     * consecutive failures counted, opening its breaker (and marking an `active` partner `failed`) at the threshold,
     * or opening it again after a failed probe. Answers whether the breaker is open now.
     */
    const recordFailure = (deliveryId: number, result: AttemptResult, settings: DeliverySettings) =>
      sql`
        WITH d AS (
          UPDATE federation_deliveries
          SET attempts = attempts + 1, last_status_code = ${result.statusCode}, last_error = ${result.error},
              status = CASE WHEN attempts + 1 >= ${settings.maxAttempts} THEN 'dead' ELSE 'retrying' END,
              next_attempt_at = CASE WHEN attempts + 1 >= ${settings.maxAttempts} THEN next_attempt_at
                ELSE now() + make_interval(secs => least(${seconds(settings.retryBase)} * power(2, attempts),
                                                         ${seconds(settings.retryCap)})) END,
              claimed_until = NULL
          WHERE id = ${deliveryId} RETURNING id, partner_id
        ), a AS (
          INSERT INTO federation_delivery_attempts (delivery_id, status_code, latency_ms, error)
          SELECT id, ${result.statusCode}, ${result.latencyMs}, ${result.error} FROM d
        )
        UPDATE federation_partners p
        SET consecutive_failures = p.consecutive_failures + 1,
            breaker_open_until = CASE
              WHEN p.consecutive_failures + 1 >= ${settings.breakerThreshold}
                AND (p.breaker_open_until IS NULL OR p.breaker_open_until <= now())
              THEN now() + make_interval(secs => ${seconds(settings.breakerOpen)})
              ELSE p.breaker_open_until END,
            status = CASE WHEN p.consecutive_failures + 1 >= ${settings.breakerThreshold} AND p.status = 'active'
              THEN 'failed' ELSE p.status END,
            updated_at = CASE WHEN p.consecutive_failures + 1 >= ${settings.breakerThreshold} AND p.status = 'active'
              THEN now() ELSE p.updated_at END
        FROM d
        WHERE p.id = d.partner_id
        RETURNING coalesce(p.breaker_open_until > now(), false) AS open`.pipe(
        withoutFlush,
        decodeFirst(Schema.Struct({ open: Schema.Boolean })),
        Effect.map(Option.exists((row) => row.open)),
        dieOnSqlError
      )

    /** A community's partner, not deleted. */
    const partnerOf = (tenantId: number, partnerId: number) =>
      sendingPartner(sql`p.tenant_id = ${tenantId} AND p.id = ${partnerId}`)

    const statusFilter = (status: DeliveryStatus | undefined) =>
      status === undefined ? sql`` : sql`AND status = ${status}`

    /** A page of a partner's deliveries, newest first, and how many there are. */
    const list = (
      tenantId: number,
      partnerId: number,
      q: { readonly status: DeliveryStatus | undefined; readonly page: number; readonly perPage: number }
    ) =>
      Effect.all({
        rows: sql`
          SELECT ${sql.literal(DELIVERY_COLUMNS)} FROM federation_deliveries
          WHERE tenant_id = ${tenantId} AND partner_id = ${partnerId} ${statusFilter(q.status)}
          ORDER BY id DESC LIMIT ${q.perPage} OFFSET ${(q.page - 1) * q.perPage}`.pipe(decodeRows(DeliveryRow)),
        total: sql`
          SELECT count(*) AS n FROM federation_deliveries
          WHERE tenant_id = ${tenantId} AND partner_id = ${partnerId} ${statusFilter(q.status)}`.pipe(
          decodeSingle(Schema.Struct({ n: DbInt })),
          Effect.map((row) => row.n)
        )
      }, { concurrency: 2 }).pipe(dieOnSqlError)

    /** A delivery by id (of a community's partner when `scope` names them). */
    const find = (deliveryId: number, scope?: { readonly tenantId: number; readonly partnerId: number }) =>
      sql`
        SELECT ${sql.literal(DELIVERY_COLUMNS)} FROM federation_deliveries
        WHERE id = ${deliveryId}
          ${scope === undefined ? sql`` : sql`AND tenant_id = ${scope.tenantId} AND partner_id = ${scope.partnerId}`}`
        .pipe(decodeFirst(DeliveryRow), dieOnSqlError)

    /** The community of a delivery's partner (for the CLI, which names only the delivery). */
    const tenantOfDelivery = (deliveryId: number) =>
      sql`SELECT tenant_id, partner_id FROM federation_deliveries WHERE id = ${deliveryId}`.pipe(
        decodeFirst(Schema.Struct({ tenant_id: DbInt, partner_id: DbInt })),
        dieOnSqlError
      )

    /**
     * Up to `limit` of a community's deliveries waiting for a later attempt (`pending` or `retrying`, not held by a
     * sender) made due at `at`, so that the worker sends them on its next poll; answers how many.
     */
    const makeDue = (tenantId: number, at: Date, limit: number) =>
      sql`
        UPDATE federation_deliveries SET next_attempt_at = ${at}
        WHERE id IN (
          SELECT id FROM federation_deliveries
          WHERE tenant_id = ${tenantId} AND status IN ('pending', 'retrying') AND next_attempt_at > ${at}
            AND (claimed_until IS NULL OR claimed_until <= ${at})
          ORDER BY id LIMIT ${limit} FOR UPDATE SKIP LOCKED)
        RETURNING id`.pipe(Effect.map((rows) => rows.length), dieOnSqlError)

    return {
      enqueue,
      makeDue,
      nobody,
      duePartners,
      partner,
      claim,
      claimForRetry,
      release,
      recordSuccesses,
      recordFailure,
      partnerOf,
      list,
      find,
      tenantOfDelivery
    } as const
  })
}) {}
