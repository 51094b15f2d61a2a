import type { Fragment } from "@effect/sql/Statement"
import { CurrentTenant, type Role, type Tenant, type UserSummary } from "@timebank/domain"
import { Effect, Schema } from "effect"
import { Audiences } from "../identity/Audiences.js"
import { UserSummaries } from "../identity/UserSummaries.js"
import { pgArray } from "../platform/SqlArrays.js"
import { DbInt, decodeRows } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"
import {
  isLanguage,
  type Language,
  languageFor,
  type MessageKey,
  type MessageParams,
  render
} from "./messages/Messages.js"
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

const spoken = decodeRows(Schema.Struct({ language: Schema.NullOr(Schema.String) }))

/** A delivery to members named by id. */
type ToMembers = Delivery & { readonly to: Extract<Recipients, { readonly members: unknown }> }
/** A fan-out to every member holding some roles. */
type ToRoles = Delivery & { readonly to: Extract<Recipients, { readonly roles: unknown }> }

const isToMembers = (delivery: Delivery): delivery is ToMembers => "members" in delivery.to
const isToRoles = (delivery: Delivery): delivery is ToRoles => "roles" in delivery.to

/** Context ids are positive; this one matches no setting. */
const NO_CONTEXT = -1

/**
 * Writes deliveries' bells and e-mail queue rows for all their recipients in ONE statement (`INSERT … SELECT` over
 * the recipient set, whatever its size; every delivery to members by id of an event or a batch of events together,
 * each fan-out to roles alone), applying the dispatch rules in order: muted senders skip every channel;
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

    /** Title and body in each of `languages`, with the community and the actor named. */
    const textsOf = (
      tenant: Tenant,
      delivery: Delivery,
      found: ReadonlyMap<number, UserSummary>,
      languages: ReadonlyArray<Language>
    ) => {
      // A change with no acting member (a grant, a reminder) speaks in the community's name.
      const params = { community: tenant.name, actor: tenant.name, ...delivery.params, ...namesOf(delivery, found) }
      return languages.map((language) => ({
        language,
        title: render(`${delivery.type}.title` as MessageKey, language, params, tenant.timezone),
        body: render(`${delivery.type}.body` as MessageKey, language, params, tenant.timezone)
      }))
    }

    /**
     * The languages the texts of a write are rendered in: the community's default and whichever shipped languages
     * its recipients read, asked first (rendering every shipped language for every delivery of a batch cost more
     * than this read). A member who switches language in between reads the default's text.
     */
    const languagesFor = (recipientRows: Fragment, fallback: Language) =>
      Effect.map(
        db.query(() => sql`SELECT DISTINCT x.language FROM (${recipientRows}) x`.pipe(spoken)),
        (rows): ReadonlyArray<Language> => [
          ...new Set([fallback, ...rows.flatMap((row) => isLanguage(row.language) ? [row.language] : [])])
        ]
      )

    /** The recipients of deliveries to members by id, as rows (`ord`: the delivery's place in the batch). */
    const memberRows = (deliveries: ReadonlyArray<ToMembers>) =>
      Effect.map(audiences.members(deliveries.flatMap((d) => d.to.members)), (audience) => {
        const pairs = deliveries.flatMap((d, ord) => [...new Set(d.to.members)].map((userId) => ({ ord, userId })))
        return sql`
          SELECT dr.ord, a.user_id, a.preferences, a.language
          FROM unnest(${pgArray(pairs.map((p) => p.ord))}::int[], ${pgArray(pairs.map((p) => p.userId))}::bigint[])
            AS dr (ord, user_id)
          JOIN (${audience}) a ON a.user_id = dr.user_id`
      })

    /** The recipients of one fan-out to roles (the only delivery of its statement), as rows. */
    const roleRows = (to: ToRoles["to"]) =>
      Effect.map(audiences.withRoles(to.roles), (audience) =>
        sql`
          SELECT 0 AS ord, a.user_id, a.preferences, a.language FROM (${audience}) a
          WHERE a.user_id IS DISTINCT FROM ${to.except}::bigint`)

    /**
     * Writes `deliveries` for the recipients `recipientRows` names, in ONE statement: each delivery's values travel
     * in arrays (`ord` numbers them), the rules apply row by row. A bell the statement would write twice (same
     * member, type and group key) is written once, for the first delivery, as writing them in turn would.
     */
    const write = Effect.fn("Dispatcher.deliver")(function*(
      deliveries: ReadonlyArray<Delivery>,
      recipientRows: Fragment,
      found: ReadonlyMap<number, UserSummary>
    ) {
      const tenant = yield* CurrentTenant
      const fallback = languageFor(null, tenant.settings.default_language)
      const languages = yield* languagesFor(recipientRows, fallback)
      const texts = deliveries.flatMap((d, ord) => textsOf(tenant, d, found, languages).map((row) => ({ ord, ...row })))
      const defaultFrequency = tenant.settings["notifications.default_frequency"]
      const column = <A>(f: (d: Delivery, ord: number) => A) => pgArray(deliveries.map(f))
      const textColumn = <A>(f: (t: typeof texts[number]) => A) => pgArray(texts.map(f))

      const rows = yield* db.query((tenantId) => {
        const setting = (contextType: string, contextId: Fragment) =>
          sql`(SELECT s.frequency FROM notification_settings s
               WHERE s.tenant_id = ${tenantId} AND s.user_id = r.user_id
                 AND s.context_type = ${contextType} AND s.context_id = ${contextId})`
        return sql`
          WITH d AS (
            SELECT * FROM unnest(
              ${column((_, ord) => ord)}::int[],
              ${column((d) => d.type)}::text[],
              ${column((d) => typeOf(d.type).category)}::text[],
              ${column((d) => d.link)}::text[],
              ${column((d) => d.actorId)}::bigint[],
              ${column((d) => `${d.type}:${d.link ?? ""}`)}::text[],
              ${column((d) => `${d.source}:${d.type}`)}::text[],
              ${column((d) => d.channels !== "email")}::bool[],
              ${column((d) => d.channels !== "bell")}::bool[],
              ${column((d) => typeOf(d.type).alwaysInstant === true)}::bool[],
              ${column((d) => typeOf(d.type).emailPreference ?? null)}::text[],
              ${column((d) => d.context?.threadId ?? NO_CONTEXT)}::bigint[],
              ${column((d) => d.context?.groupId ?? NO_CONTEXT)}::bigint[]
            ) AS d (ord, type, category, link, actor_id, group_key, source_key, bell, email, instant, preference,
                    thread_id, group_id)
          ),
          recipients AS (
            SELECT d.*, x.user_id, x.preferences,
                   CASE WHEN x.language = ANY(${pgArray([...languages])}::text[]) THEN x.language ELSE ${fallback} END
                     AS language
            FROM (${recipientRows}) x
            JOIN d USING (ord)
            WHERE NOT EXISTS (SELECT 1 FROM user_mutes m WHERE m.tenant_id = ${tenantId}
                                AND m.user_id = x.user_id AND m.muted_user_id = d.actor_id)
          ),
          texts AS (
            SELECT * FROM unnest(
              ${textColumn((t) => t.ord)}::int[],
              ${textColumn((t) => t.language)}::text[],
              ${textColumn((t) => t.title)}::text[],
              ${textColumn((t) => t.body)}::text[]
            ) AS t (ord, language, title, body)
          ),
          bells AS (
            INSERT INTO notifications
              (tenant_id, user_id, type, category, title, message, link, actor_id, group_key, source_key)
            SELECT ${tenantId}::bigint, user_id, type, category, title, body, link, actor_id, group_key, source_key
            FROM (
              SELECT DISTINCT ON (r.user_id, r.type, r.group_key) r.*, t.title, t.body
              FROM recipients r JOIN texts t ON t.ord = r.ord AND t.language = r.language
              WHERE r.bell AND NOT EXISTS (
                SELECT 1 FROM notifications n
                WHERE n.tenant_id = ${tenantId} AND n.user_id = r.user_id AND n.type = r.type
                  AND n.group_key = r.group_key AND n.created_at > now() - interval '60 seconds')
              ORDER BY r.user_id, r.type, r.group_key, r.ord
            ) first
            -- Ids in the deliveries' order: the inbox shows newest first by id.
            ORDER BY ord
            ON CONFLICT (user_id, source_key) WHERE source_key IS NOT NULL DO NOTHING
            RETURNING id, user_id, source_key
          ),
          mail AS (
            INSERT INTO notification_email_queue (tenant_id, user_id, notification_id, activity_type, category,
              content_snippet, subject, email_body, link, frequency, source_key)
            SELECT ${tenantId}, r.user_id, b.id, r.type, r.category, left(t.body, 200), t.title, t.body, r.link,
                   f.frequency, r.source_key
            FROM recipients r
            JOIN texts t ON t.ord = r.ord AND t.language = r.language
            LEFT JOIN bells b ON b.user_id = r.user_id AND b.source_key = r.source_key
            CROSS JOIN LATERAL (
              SELECT CASE WHEN r.instant THEN 'instant'
                ELSE coalesce(${setting("thread", sql`r.thread_id`)}, ${setting("group", sql`r.group_id`)},
                              ${setting("global", sql`0`)}, ${defaultFrequency}, 'off') END AS frequency
            ) f
            WHERE r.email AND (NOT r.bell OR b.id IS NOT NULL) AND f.frequency <> 'off'
              AND coalesce((r.preferences->>'email_enabled')::boolean, true)
              AND (r.preference IS NULL OR coalesce((r.preferences->>r.preference)::boolean, true))
            ON CONFLICT (user_id, source_key) WHERE source_key IS NOT NULL DO NOTHING
            RETURNING id, user_id
          )
          SELECT 'bell' AS kind, id, user_id FROM bells
          UNION ALL
          SELECT 'mail' AS kind, id, user_id FROM mail`.pipe(written)
      })
      const bells = rows.filter((row) => row.kind === "bell")
      yield* Effect.annotateCurrentSpan({ deliveries: deliveries.length, bells: bells.length })
      return {
        notificationIds: bells.map((row) => row.id),
        userIds: bells.map((row) => row.user_id),
        emails: rows.length - bells.length
      } satisfies Delivered
    })

    /**
     * Writes `deliveries` (one event's, or a batch of events'), the names they show read in one query first: those
     * to members by id in one statement, then each fan-out to roles in one of its own. Answers what was written.
     */
    const deliverAll = (deliveries: ReadonlyArray<Delivery>) =>
      Effect.gen(function*() {
        const found = yield* summariesOf(deliveries)
        const toMembers = deliveries.filter(isToMembers)
        const written: Array<Delivered> = []
        if (toMembers.length > 0) written.push(yield* write(toMembers, yield* memberRows(toMembers), found))
        for (const fanOut of deliveries.filter(isToRoles)) {
          written.push(yield* write([fanOut], yield* roleRows(fanOut.to), found))
        }
        return {
          notificationIds: written.flatMap((w) => w.notificationIds),
          userIds: written.flatMap((w) => w.userIds),
          emails: written.reduce((n, w) => n + w.emails, 0)
        } satisfies Delivered
      })

    return { deliver: (delivery: Delivery) => deliverAll([delivery]), deliverAll } as const
  })
}) {}
