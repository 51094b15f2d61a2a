import type { SqlError } from "@effect/sql/SqlError"
import { CurrentTenant, type DomainEventOf } from "@timebank/domain"
import { Cause, Chunk, Effect, Option, Schedule } from "effect"
import { groupByTenant, type OutboxItem, type OutboxMeta, subscriberLayer } from "../platform/OutboxPublisher.js"
import { isTransientSqlError } from "../platform/SqlErrors.js"
import { TenantSql } from "../platform/TenantSql.js"
import { TenantDirectory } from "../tenancy/TenantDirectory.js"
import { BadgeAwards } from "./BadgeAwards.js"
import { CampaignRepo } from "./CampaignRepo.js"
import { XpRepo } from "./XpRepo.js"
import { entriesOf, multiplierAt, pointsOf, XP_TAGS, type XpTag } from "./XpRules.js"

export const GAMIFICATION_SUBSCRIBER = "gamification-awards"

/**
 * What domain events earn: points for each member they name (× the best campaign covering the event's type at
 * the event's time) in the XP ledger, and the badges their progress now reaches. One transaction per community and
 * batch of events; the ledger's source key (outbox id, event type, member) makes a redelivered event write and
 * award nothing. Communities with gamification off record nothing.
 */
export class GamificationEvents extends Effect.Service<GamificationEvents>()("GamificationEvents", {
  dependencies: [TenantSql.Default, TenantDirectory.Default, BadgeAwards.Default, CampaignRepo.Default, XpRepo.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const tenants = yield* TenantDirectory
    const awards = yield* BadgeAwards
    const campaigns = yield* CampaignRepo
    const xp = yield* XpRepo

    /** The events of one community: their points in one statement, then the badges of everyone who scored. */
    const record = (items: ReadonlyArray<OutboxItem<XpTag>>) =>
      Effect.gen(function*() {
        const scored = items.flatMap(({ event, meta }) => entriesOf(event).map((entry) => ({ entry, meta })))
        if (scored.length === 0) return 0
        yield* awards.ensureCatalogue
        const times = scored.map(({ meta }) => meta.createdAt.getTime())
        const running = yield* campaigns.activeBetween(new Date(Math.min(...times)), new Date(Math.max(...times)))
        const windows = running.map((c) => ({
          startsAt: c.starts_at,
          endsAt: c.ends_at,
          multiplier: c.xp_multiplier,
          appliesTo: c.applies_to,
          isActive: c.is_active
        }))
        const records = scored.map(({ entry, meta }) => {
          const multiplier = multiplierAt(windows, entry.event, meta.createdAt)
          return {
            userId: entry.userId,
            eventType: entry.event,
            quantity: entry.quantity,
            points: pointsOf(entry, multiplier),
            multiplier,
            sourceKey: `${meta.id}:${entry.event}:${entry.userId}`,
            occurredAt: meta.createdAt
          }
        })
        return yield* db.transaction(Effect.gen(function*() {
          const members = yield* xp.record(records)
          if (members.length === 0) return 0
          return (yield* awards.awardEarned([...new Set(members)])).length
        }))
      })

    /** Events of any communities, in commit order; answers how many badges they awarded. */
    const handleMany = (items: ReadonlyArray<OutboxItem<XpTag>>) =>
      Effect.gen(function*() {
        let awarded = 0
        for (const [tenantId, list] of groupByTenant(items)) {
          const tenant = yield* tenants.findById(tenantId)
          if (Option.isNone(tenant) || !tenant.value.isEnabled("gamification")) continue
          awarded += yield* Effect.provideService(record(list), CurrentTenant, tenant.value)
        }
        return awarded
      }).pipe(Effect.withSpan("GamificationEvents.handleMany", { attributes: { events: items.length } }))

    /** Handles one event of the outbox; answers how many badges it awarded. */
    const handle = (event: DomainEventOf<XpTag>, meta: OutboxMeta) =>
      handleMany([{ event, meta }]).pipe(
        Effect.withSpan("GamificationEvents.handle", { attributes: { type: event._tag, event_id: meta.id } })
      )

    return { handle, handleMany } as const
  })
}) {}

/** Retries of a failing event before it is logged and passed over (short: the events behind it wait meanwhile). */
const ATTEMPTS = 3

/**
 * The database was away (a restart, a dropped connection): passing the event over would lose its points for good,
 * so the failure goes back to the outbox publisher, which retries with back-off and keeps a dead letter at the end.
 */
const isSqlError = (e: unknown): e is SqlError =>
  typeof e === "object" && e !== null && "_tag" in e && e._tag === "SqlError"

const isTransient = (cause: Cause.Cause<unknown>) =>
  // Repositories turn SQL errors into defects (`dieOnSqlError`), so both channels are searched.
  Chunk.some(
    Chunk.appendAll(Cause.failures(cause), Cause.defects(cause)),
    (error) => isSqlError(error) && isTransientSqlError(error)
  )

/**
 * The gamification's outbox subscriber. A defect handling one event (a bug, a row that breaks a constraint) is
 * retried briefly, then logged and passed over, so it never stalls the events behind it; a member's badges it
 * would have earned come with their next event or a recheck.
 */
export const GamificationAwardsLive = subscriberLayer({
  name: GAMIFICATION_SUBSCRIBER,
  tags: XP_TAGS,
  handle: (event, meta) =>
    Effect.flatMap(GamificationEvents, (gamification) => gamification.handle(event, meta)).pipe(
      Effect.sandbox,
      Effect.retry(Schedule.spaced("100 millis").pipe(Schedule.intersect(Schedule.recurs(ATTEMPTS - 1)))),
      Effect.catchAll((cause) =>
        Cause.isInterruptedOnly(cause) || isTransient(cause)
          ? Effect.failCause(cause)
          : Effect.logError("gamification: event passed over after repeated failures", cause).pipe(
            Effect.annotateLogs({ subscriber: GAMIFICATION_SUBSCRIBER, event_id: meta.id, event_type: event._tag })
          )
      ),
      Effect.asVoid
    ),
  // A busy ledger raises two scored events per transfer: a batch's points are one statement per community. When
  // the batch fails, the publisher hands its events to `handle` one by one (with the retries above).
  handleMany: (items) => Effect.flatMap(GamificationEvents, (gamification) => gamification.handleMany(items))
})
