import {
  CurrentTenant,
  CurrentUser,
  isTrueFlag,
  NotFound,
  type NotificationCategory,
  type NotificationId,
  type NotificationListParams
} from "@timebank/domain"
import { Effect, Layer, Option } from "effect"
import { idCursorPage } from "../platform/Paging.js"
import { BellRepo } from "./BellRepo.js"
import { BellViews } from "./BellViews.js"
import { RealtimeBus } from "./realtime/RealtimeBus.js"

const DEFAULT_PER_PAGE = 20
const notFound = new NotFound({ message: "Notification not found" })

/** The caller's bell inbox (decisions D9, D12): every operation acts on the caller's own items only. */
export class InboxService extends Effect.Service<InboxService>()("InboxService", {
  // The bus reads its settings at start; a bad setting already stops the start in the realtime route's layer.
  dependencies: [BellRepo.Default, BellViews.Default, Layer.orDie(RealtimeBus.Default)],
  effect: Effect.gen(function*() {
    const repo = yield* BellRepo
    const views = yield* BellViews
    const bus = yield* RealtimeBus
    const me = Effect.map(CurrentUser, (user) => user.userId)

    /** After a read or a delete, the member's open sockets get fresh counts (off the request's path). */
    const countsChanged = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      Effect.tap(effect, () =>
        Effect.flatMap(
          Effect.all([CurrentTenant, me]),
          ([tenant, userId]) => Effect.forkDaemon(bus.countsChanged(tenant.id, userId))
        ))

    const list = Effect.fn("Inbox.list")(function*(params: NotificationListParams) {
      const userId = yield* me
      const perPage = params.per_page ?? DEFAULT_PER_PAGE
      const rows = yield* repo.list(userId, {
        category: params.type,
        unreadOnly: isTrueFlag(params.unread_only),
        before: params.cursor,
        limit: perPage + 1
      })
      return yield* idCursorPage(rows, perPage, views.items)
    })

    const grouped = Effect.fn("Inbox.grouped")(function*() {
      return yield* views.grouped(yield* repo.latest(yield* me))
    })

    const counts = Effect.flatMap(me, repo.counts)

    const get = Effect.fn("Inbox.get")(function*(id: number) {
      const row = yield* repo.find(yield* me, id)
      return yield* Option.match(row, { onNone: () => Effect.fail(notFound), onSome: views.item })
    })

    const read = Effect.fn("Inbox.read")(function*(id: NotificationId) {
      const row = yield* repo.markRead(yield* me, id)
      return yield* Option.match(row, { onNone: () => Effect.fail(notFound), onSome: views.item })
    })

    const readAll = Effect.map(Effect.flatMap(me, repo.markAllRead), (n) => ({ marked_read: n }))

    const readGroup = (groupKey: string) =>
      Effect.map(Effect.flatMap(me, (userId) => repo.markGroupRead(userId, groupKey)), (n) => ({ marked_read: n }))

    const remove = Effect.fn("Inbox.remove")(function*(id: NotificationId) {
      const removed = yield* repo.remove(yield* me, id)
      if (!removed) return yield* Effect.fail(notFound)
      return { id, deleted: true as const }
    })

    const removeCategory = (category: NotificationCategory) =>
      Effect.map(Effect.flatMap(me, (userId) => repo.removeCategory(userId, category)), (n) => ({ deleted: n }))

    return {
      list,
      grouped,
      counts,
      get,
      read: (id: NotificationId) => countsChanged(read(id)),
      readAll: countsChanged(readAll),
      readGroup: (groupKey: string) => countsChanged(readGroup(groupKey)),
      remove: (id: NotificationId) => countsChanged(remove(id)),
      removeCategory: (category: NotificationCategory) => countsChanged(removeCategory(category))
    } as const
  })
}) {}
