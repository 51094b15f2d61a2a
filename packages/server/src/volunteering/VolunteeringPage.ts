import { type CursorMeta, VOLUNTEERING_PER_PAGE_DEFAULT } from "@timebank/domain"
import { Effect } from "effect"
import { idCursorPage } from "../platform/Paging.js"

/** Which rows a cursor page reads: those older than `before`, one more than the page (to know whether more follow). */
export interface PageQuery {
  readonly before?: number | undefined
  readonly limit: number
}

/**
 * A cursor page of a volunteering list, newest first (`?cursor=&per_page=`): `read` fetches the rows, `views`
 * turns the page's rows into views in one call (so related data loads once per page).
 */
export const volunteeringPage = <Row extends { readonly id: number }, View, E, R, E2, R2>(
  params: { readonly cursor?: number | undefined; readonly per_page?: number | undefined },
  read: (query: PageQuery) => Effect.Effect<ReadonlyArray<Row>, E, R>,
  views: (rows: ReadonlyArray<Row>) => Effect.Effect<ReadonlyArray<View>, E2, R2>,
  defaultPerPage = VOLUNTEERING_PER_PAGE_DEFAULT
): Effect.Effect<{ readonly data: ReadonlyArray<View>; readonly meta: CursorMeta }, E | E2, R | R2> => {
  const perPage = params.per_page ?? defaultPerPage
  return Effect.flatMap(
    read({ before: params.cursor, limit: perPage + 1 }),
    (rows) => idCursorPage(rows, perPage, views)
  )
}
