import { SqlClient } from "@effect/sql"
import { FederationPartnerId } from "@timebank/domain"
import { Effect } from "effect"
import { apiClient, expectOk } from "../fixtures/client.js"
import type { Actor } from "../fixtures/community.js"
import { fromIp, randomIp } from "../fixtures/servers.js"

/**
 * Helpers of the outbound webhook tests: the worker's fast settings, acting members, and the rows the feature
 * writes (read straight from the database: what the admin routes answer is tested through them separately).
 */

/** D13's timings shortened so a test sees retries, the breaker and death within seconds. */
export const FAST_DELIVERY = {
  FEDERATION_WEBHOOK_RETRY_BASE: "200 millis",
  FEDERATION_WEBHOOK_RETRY_CAP: "800 millis",
  FEDERATION_BREAKER_OPEN: "2 seconds",
  FEDERATION_WEBHOOK_POLL_INTERVAL: "100 millis",
  FEDERATION_WEBHOOK_TIMEOUT: "1 second",
  FEDERATION_WEBHOOK_CONNECT_TIMEOUT: "1 second"
}

export const pid = (id: number) => FederationPartnerId.make(id)

export const optIn = (who: Actor, federation_opt_in = true) =>
  who.client.users.updateMe({ payload: { federation_opt_in } }).pipe(expectOk)

/** A listing created over HTTP by `who`, from an address of its own (listing creation is limited per IP). */
export const createListing = (who: Actor, title: string) =>
  Effect.gen(function*() {
    const client = yield* apiClient({ ...fromIp(randomIp()), ...who.headers })
    const created = yield* client.listings.create({
      payload: { type: "offer", title, description: "Help with the garden" }
    }).pipe(expectOk)
    return created.data.id as number
  })

const query = <A extends object>(run: (sql: SqlClient.SqlClient) => Effect.Effect<ReadonlyArray<A>, unknown>) =>
  Effect.flatMap(SqlClient.SqlClient, run).pipe(Effect.orDie)

export interface DeliveryRecord {
  readonly id: number
  readonly partner_id: number
  readonly webhook_id: string
  readonly event: string
  readonly status: string
  readonly attempts: number
  readonly last_status_code: number | null
  readonly last_error: string | null
  readonly data_id: string | null
  readonly member_id: string | null
}

/** Every delivery of `partnerIds`, by partner, oldest first. */
export const deliveriesOf = (...partnerIds: ReadonlyArray<number>) =>
  query<DeliveryRecord>((sql) =>
    sql<DeliveryRecord>`
      SELECT id::int, partner_id::int, webhook_id::text, event, status, attempts, last_status_code, last_error,
             body -> 'data' ->> 'id' AS data_id, body -> 'data' ->> 'member_id' AS member_id
      FROM federation_deliveries WHERE partner_id IN ${sql.in(partnerIds)} ORDER BY partner_id, id`
  )

export interface AttemptRecord {
  readonly status_code: number | null
  readonly latency_ms: number
  readonly error: string | null
  readonly at_ms: number
}

export const attemptsOf = (deliveryId: number) =>
  query<AttemptRecord>((sql) =>
    sql<AttemptRecord>`
      SELECT status_code, latency_ms, error, (extract(epoch FROM attempted_at) * 1000)::float8 AS at_ms
      FROM federation_delivery_attempts WHERE delivery_id = ${deliveryId} ORDER BY id`
  )

export interface PartnerState {
  readonly status: string
  readonly consecutive_failures: number
  readonly open: boolean
  readonly breaker_open_until: Date | null
}

export const partnerState = (partnerId: number) =>
  Effect.map(
    query<PartnerState>((sql) =>
      sql<PartnerState>`
        SELECT status, consecutive_failures, breaker_open_until,
               coalesce(breaker_open_until > now(), false) AS open
        FROM federation_partners WHERE id = ${partnerId}`
    ),
    (rows) => rows[0]!
  )

export const setPartnerStatus = (partnerId: number, status: string) =>
  query((sql) => sql`UPDATE federation_partners SET status = ${status} WHERE id = ${partnerId}`)

/** Whether the `federation-webhooks` subscriber has handled every event in the outbox. */
export const subscriberCaughtUp = query<{ done: boolean }>((sql) =>
  sql<{ done: boolean }>`
    SELECT NOT EXISTS (
      SELECT 1 FROM outbox_events e
      WHERE NOT EXISTS (
        SELECT 1 FROM outbox_cursors c
        WHERE c.subscriber = 'federation-webhooks' AND (e.tx_id, e.id) <= (c.tx_id, c.event_id))) AS done`
).pipe(Effect.map((rows) => rows[0]!.done))

/** Waits until the subscriber has handled everything written so far: absent deliveries are then absent for good. */
export const afterSubscriber = Effect.gen(function*() {
  const deadline = Date.now() + 15_000
  while (!(yield* subscriberCaughtUp)) {
    if (Date.now() > deadline) return yield* Effect.die(new Error("the webhook subscriber did not catch up"))
    yield* Effect.sleep("50 millis")
  }
})
