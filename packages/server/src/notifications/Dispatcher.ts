import type { Fragment } from "@effect/sql/Statement"
import { CurrentTenant, type Role, type UserSummary } from "@timebank/domain"
import { Effect, Schema } from "effect"
import { Audiences } from "../identity/Audiences.js"
import { UserSummaries } from "../identity/UserSummaries.js"
import { pgArray } from "../platform/SqlArrays.js"
import { DbInt, decodeRows } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"
import { languageFor, LANGUAGES, type MessageKey, type MessageParams, renderAll } from "./messages/Messages.js"
import { type NotificationTypeName, typeOf } from "./NotificationTypes.js"

/**
 * Who a delivery is for: members by id, or every member holding one of some roles (the admin fan-out), `except`
 * one (the staff member who acted does not hear of their own act).
 */
export type Recipients =
  | { readonly members: ReadonlyArray<number> }
  | { readonly roles: ReadonlyArray<Role>; readonly except: number | null }

/** Which channels a delivery may use; push always follows a fresh bell. */
export type Channels = "bell+email" | "bell" | "email"

/** One notification type for one set of recipients, as a domain event raises it. */
export interface Delivery {
  readonly type: NotificationTypeName
  readonly to: Recipients
  /** The member whose action raised it: shown as the bell's actor; whoever muted them hears nothing of it. */
  readonly actorId: number | null
  readonly link: string | null
  readonly params: MessageParams
  /** Members named in the texts: each parameter gets the member's full name (`actor` is always the actor's). */
  readonly people?: Readonly<Record<string, number>>
  readonly channels: Channels
  /** What raised it, unique per event (the outbox id): a redelivered event adds no bell and no e-mail twice. */
  readonly source: string
  /** The thread or group it belongs to, for the member's frequency of that context. */
  readonly context?: { readonly threadId?: number; readonly groupId?: number }
}

/** What one delivery wrote: the new bells, and how many e-mails it queued. */
export interface Delivered {
  readonly notificationIds: ReadonlyArray<number>
  readonly userIds: ReadonlyArray<number>
  readonly emails: number
}

const written = decodeRows(Schema.Struct({ kind: Schema.Literal("bell", "mail"), id: DbInt, user_id: DbInt }))

/** Context ids are positive; this one matches no setting. */
const NO_CONTEXT = -1

/**
 * Writes a delivery's bells and e-mail queue rows for all its recipients in ONE statement (`INSERT … SELECT` over
 * the recipient set, whatever its size), applying the dispatch rules in order: muted senders skip every channel;
 * a bell equal to one of the last 60 seconds (tenant, user, type, link) is not written again, nor its e-mail;
 * e-mail frequency resolves thread → group → global → the community's default → `off`, except for the
 * always-instant types; the member's e-mail switches are honoured. Being one statement, an e-mail row that cannot be
 * written takes its bell with it.
 */
export class Dispatcher extends Effect.Service<Dispatcher>()("Dispatcher", {
  dependencies: [TenantSql.Default, Audiences.Default, UserSummaries.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db
    const audiences = yield* Audiences
    const users = yield* UserSummaries

    const audienceOf = (to: Recipients): Effect.Effect<Fragment, never, CurrentTenant> =>
      "members" in to ? audiences.members(to.members) : audiences.withRoles(to.roles)

    /** Everyone a delivery names: the actor and its people, by parameter. */
    const peopleOf = (delivery: Delivery): Record<string, number> => ({
      ...delivery.people,
      ...(delivery.actorId === null ? {} : { actor: delivery.actorId })
    })

    /** The full names of the people of `deliveries`, in one query for all of them. */
    const summariesOf = (deliveries: ReadonlyArray<Delivery>) =>
      users.byIds(deliveries.flatMap((delivery) => Object.values(peopleOf(delivery))))

    const namesOf = (delivery: Delivery, found: ReadonlyMap<number, UserSummary>): Record<string, string> =>
      Object.fromEntries(
        Object.entries(peopleOf(delivery)).map(([param, id]) => {
          const member = found.get(id)
          return [param, member === undefined ? "" : `${member.first_name} ${member.last_name}`.trim()]
        })
      )

    /** Title and body in every shipped language, with the community and the actor named. */
    const textsOf = (delivery: Delivery, found: ReadonlyMap<number, UserSummary>) =>
      Effect.gen(function*() {
        const tenant = yield* CurrentTenant
        // A change with no acting member (a grant, a reminder) speaks in the community's name.
        const params = { community: tenant.name, actor: tenant.name, ...delivery.params, ...namesOf(delivery, found) }
        const title = renderAll(`${delivery.type}.title` as MessageKey, params, tenant.timezone)
        const body = renderAll(`${delivery.type}.body` as MessageKey, params, tenant.timezone)
        return {
          languages: pgArray([...LANGUAGES]),
          titles: pgArray(LANGUAGES.map((l) => title[l])),
          bodies: pgArray(LANGUAGES.map((l) => body[l])),
          fallback: languageFor(null, tenant.settings.default_language),
          defaultFrequency: tenant.settings["notifications.default_frequency"]
        }
      })

    const write = Effect.fn("Dispatcher.deliver")(
      function*(delivery: Delivery, found: ReadonlyMap<number, UserSummary>) {
        const type = typeOf(delivery.type)
        const audience = yield* audienceOf(delivery.to)
        const texts = yield* textsOf(delivery, found)
        const bell = delivery.channels !== "email"
        const email = delivery.channels !== "bell"
        const groupKey = `${delivery.type}:${delivery.link ?? ""}`
        const sourceKey = `${delivery.source}:${delivery.type}`
        const actorId = delivery.actorId
        const except = "except" in delivery.to ? delivery.to.except : null
        const threadId = delivery.context?.threadId ?? NO_CONTEXT
        const groupId = delivery.context?.groupId ?? NO_CONTEXT
        const switchOn = (key: string) => sql`coalesce((r.preferences->>${key})::boolean, true)`
        const emailAllowed = type.emailPreference === undefined
          ? switchOn("email_enabled")
          : sql`${switchOn("email_enabled")} AND ${switchOn(type.emailPreference)}`

        const rows = yield* db.query((tenantId) => {
          const setting = (contextType: string, contextId: number) =>
            sql`(SELECT s.frequency FROM notification_settings s
               WHERE s.tenant_id = ${tenantId} AND s.user_id = r.user_id
                 AND s.context_type = ${contextType} AND s.context_id = ${contextId})`
          const frequency = type.alwaysInstant === true
            ? sql`'instant'`
            : sql`coalesce(${setting("thread", threadId)}, ${setting("group", groupId)}, ${setting("global", 0)},
                         ${texts.defaultFrequency}, 'off')`
          return sql`
          WITH audience AS (${audience}),
          recipients AS (
            SELECT a.user_id, a.preferences,
                   CASE WHEN a.language = ANY(${texts.languages}::text[]) THEN a.language ELSE ${texts.fallback} END
                     AS language
            FROM audience a
            WHERE a.user_id IS DISTINCT FROM ${except}::bigint
              AND NOT EXISTS (SELECT 1 FROM user_mutes m WHERE m.tenant_id = ${tenantId}
                                AND m.user_id = a.user_id AND m.muted_user_id = ${actorId}::bigint)
          ),
          texts AS (
            SELECT * FROM unnest(${texts.languages}::text[], ${texts.titles}::text[], ${texts.bodies}::text[])
              AS t (language, title, body)
          ),
          bells AS (
            INSERT INTO notifications
              (tenant_id, user_id, type, category, title, message, link, actor_id, group_key, source_key)
            SELECT ${tenantId}, r.user_id, ${delivery.type}, ${type.category}, t.title, t.body, ${delivery.link},
                   ${actorId}::bigint, ${groupKey}, ${sourceKey}
            FROM recipients r JOIN texts t USING (language)
            WHERE ${bell} AND NOT EXISTS (
              SELECT 1 FROM notifications n
              WHERE n.tenant_id = ${tenantId} AND n.user_id = r.user_id AND n.type = ${delivery.type}
                AND n.group_key = ${groupKey} AND n.created_at > now() - interval '60 seconds')
            ON CONFLICT (user_id, source_key) WHERE source_key IS NOT NULL DO NOTHING
            RETURNING id, user_id
          ),
          mail AS (
            INSERT INTO notification_email_queue (tenant_id, user_id, notification_id, activity_type, category,
              content_snippet, subject, email_body, link, frequency, source_key)
            SELECT ${tenantId}, r.user_id, b.id, ${delivery.type}, ${type.category}, left(t.body, 200), t.title,
                   t.body, ${delivery.link}, f.frequency, ${sourceKey}
            FROM recipients r
            JOIN texts t USING (language)
            LEFT JOIN bells b ON b.user_id = r.user_id
            CROSS JOIN LATERAL (SELECT ${frequency} AS frequency) f
            WHERE ${email} AND (NOT ${bell} OR b.id IS NOT NULL) AND f.frequency <> 'off' AND ${emailAllowed}
            ON CONFLICT (user_id, source_key) WHERE source_key IS NOT NULL DO NOTHING
            RETURNING id, user_id
          )
          SELECT 'bell' AS kind, id, user_id FROM bells
          UNION ALL
          SELECT 'mail' AS kind, id, user_id FROM mail`.pipe(written)
        })
        const bells = rows.filter((row) => row.kind === "bell")
        yield* Effect.annotateCurrentSpan({
          type: delivery.type,
          bells: bells.length,
          emails: rows.length - bells.length
        })
        return {
          notificationIds: bells.map((row) => row.id),
          userIds: bells.map((row) => row.user_id),
          emails: rows.length - bells.length
        } satisfies Delivered
      }
    )

    /** Writes one delivery (its names read first). */
    const deliver = (delivery: Delivery) => Effect.flatMap(summariesOf([delivery]), (found) => write(delivery, found))

    /** Writes `deliveries` in order, the names of all of them read in one query first (a batch of events). */
    const deliverAll = (deliveries: ReadonlyArray<Delivery>) =>
      Effect.flatMap(
        summariesOf(deliveries),
        (found) => Effect.forEach(deliveries, (delivery) => write(delivery, found))
      )

    return { deliver, deliverAll } as const
  })
}) {}
