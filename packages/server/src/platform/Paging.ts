import { type CursorMeta, cursorPage, encodeCursor } from "@timebank/domain"
import { Effect } from "effect"

/**
 * A cursor page of rows read in id order (one more than `perPage`, to know whether more follow), the cursor being
 * the last id, with the page's rows turned into views by ONE call (so related data loads once per page).
 */
export const idCursorPage = <Row extends { readonly id: number }, View, E, R>(
  rows: ReadonlyArray<Row>,
  perPage: number,
  views: (rows: ReadonlyArray<Row>) => Effect.Effect<ReadonlyArray<View>, E, R>
): Effect.Effect<{ readonly data: ReadonlyArray<View>; readonly meta: CursorMeta }, E, R> => {
  const page = cursorPage(rows, perPage, (last) => encodeCursor(last.id))
  return Effect.map(views(page.data), (data) => ({ data, meta: page.meta }))
}

/** The `?page=&per_page=` of an offset list (decisions D1, D17) with their defaults: page 1, `defaultPerPage`. */
export const offsetPage = (
  params: { readonly page?: number | undefined; readonly per_page?: number | undefined },
  defaultPerPage: number
) => ({ page: params.page ?? 1, perPage: params.per_page ?? defaultPerPage })
