import { type AdminListEventsParams, type CancelEventPayload, type EventId, offsetMeta } from "@timebank/domain"
import { Clock, Effect } from "effect"
import { offsetPage } from "../platform/Paging.js"
import { requireTenantAdmin, TenantAdmin } from "../platform/Policy.js"
import { EventLifecycle, foundEvent } from "./EventLifecycle.js"
import { EventRepo } from "./EventRepo.js"
import { requireEventEditor } from "./EventsPolicy.js"
import { EventViews } from "./EventViews.js"

export const DEFAULT_ADMIN_EVENTS_PER_PAGE = 20

/**
 * Events of the community for its admins (tenant admin or platform super-admin): every status, occurrences
 * included. Cancel and delete are the organiser's own cascades (EventLifecycle), run with the admin as editor.
 */
export class AdminEventsService extends Effect.Service<AdminEventsService>()("AdminEventsService", {
  dependencies: [EventRepo.Default, EventViews.Default, EventLifecycle.Default],
  effect: Effect.gen(function*() {
    const repo = yield* EventRepo
    const views = yield* EventViews
    const lifecycle = yield* EventLifecycle

    const find = (id: number) => foundEvent(repo.findById(id))

    const list = Effect.fn("AdminEvents.list")(
      function*(params: AdminListEventsParams) {
        yield* TenantAdmin
        const { page, perPage } = offsetPage(params, DEFAULT_ADMIN_EVENTS_PER_PAGE)
        const result = yield* repo.listAdmin({
          page,
          perPage,
          now: new Date(yield* Clock.currentTimeMillis),
          status: params.status,
          when: params.when,
          userId: params.user_id,
          search: params.search
        })
        return { data: yield* views.many(result.rows), meta: offsetMeta(page, perPage, result.total) }
      },
      requireTenantAdmin
    )

    const get = Effect.fn("AdminEvents.get")(
      function*(id: EventId) {
        yield* TenantAdmin
        return yield* views.one(yield* find(id))
      },
      requireTenantAdmin
    )

    const cancel = Effect.fn("AdminEvents.cancel")(
      function*(id: EventId, payload: CancelEventPayload) {
        yield* TenantAdmin
        const row = yield* find(id)
        const cancelled = yield* requireEventEditor(row)(lifecycle.cancel(row, payload?.reason ?? null))
        return yield* views.one(cancelled)
      },
      requireTenantAdmin
    )

    const remove = Effect.fn("AdminEvents.delete")(
      function*(id: EventId) {
        yield* TenantAdmin
        const row = yield* find(id)
        return yield* requireEventEditor(row)(lifecycle.remove(row))
      },
      requireTenantAdmin
    )

    return { list, get, cancel, remove } as const
  })
}) {}
