import { SqlClient } from "@effect/sql"
import { assert } from "@effect/vitest"
import type { Notification } from "@timebank/domain"
import { Effect } from "effect"
import type { Actor } from "../fixtures/community.js"
import { dispatchSettled, queuedMails } from "../fixtures/notifications.js"

/** What the event bells of these tests are about: an event's id (its link) and its title (its e-mails' subject). */
export interface About {
  readonly id: number
  readonly title: string
}

export const linkOf = (event: { readonly id: number }) => `/events/${event.id}`

/**
 * `who`'s bells of `type` linking to the event, once the dispatch has handled every outbox event written so far —
 * so that an empty answer means "none came", not "none yet".
 */
export const bellsOn = (who: Actor, type: string, event: { readonly id: number }) =>
  Effect.zipRight(
    dispatchSettled,
    Effect.map(
      Effect.orDie(who.client.notifications.list({ urlParams: { per_page: 100 } })),
      (page) => page.data.filter((b) => b.type === type && b.link === linkOf(event))
    )
  )

/** `who`'s queued e-mails of `type` whose subject names the event's title (in any language), after the dispatch. */
export const mailsOn = (who: { readonly id: number }, type: string, event: About) =>
  Effect.zipRight(
    dispatchSettled,
    Effect.map(queuedMails(who), (rows) =>
      rows.filter((m) => m.activity_type === type && m.subject.includes(event.title)))
  )

/** The one bell of `bells`, checked against D12's item: type, category `events`, title, the event's link, actor. */
export const expectOneBell = (
  bells: ReadonlyArray<Notification>,
  expected: { readonly type: string; readonly title: string; readonly event: About; readonly actor: Actor | null }
): Notification => {
  assert.strictEqual(bells.length, 1, `bells: ${JSON.stringify(bells.map((b) => b.title))}`)
  const bell = bells[0]!
  assert.deepInclude(bell, {
    type: expected.type,
    category: "events",
    title: expected.title,
    link: linkOf(expected.event)
  })
  const actorId: number | null = bell.actor?.id ?? null
  assert.strictEqual(actorId, expected.actor?.id ?? null, "actor")
  return bell
}

/** Asserts that none of `who` has a bell of `type` on the event (after the dispatch caught up). */
export const expectNoBells = (who: ReadonlyArray<Actor>, type: string, event: { readonly id: number }) =>
  Effect.forEach(who, (one) =>
    Effect.map(bellsOn(one, type, event), (bells) =>
      assert.deepStrictEqual(
        bells.map((b) => b.title),
        [],
        `${type} for user ${one.id}`
      )), { discard: true })

/** Moves `who`'s bells on the event back two minutes, past the 60-second dedupe (test set-up). */
export const ageBells = (who: { readonly id: number }, event: { readonly id: number }) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql`UPDATE notifications SET created_at = created_at - interval '2 minutes'
        WHERE user_id = ${who.id} AND link = ${linkOf(event)}`
  ).pipe(Effect.orDie, Effect.asVoid)
