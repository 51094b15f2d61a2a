import { Schema } from "effect"

/** `{"data": <item>, "meta": {}}` — the success envelope of one record (decisions D1). */
export const DataEnvelope = <S extends Schema.Schema.Any>(data: S) => Schema.Struct({ data, meta: Schema.Struct({}) })

export const CursorMeta = Schema.Struct({
  per_page: Schema.Int,
  has_more: Schema.Boolean,
  cursor: Schema.optional(Schema.String).annotations({ description: "Pass back as ?cursor=; absent on the last page" })
})
export type CursorMeta = typeof CursorMeta.Type

/** `{"data": [...], "meta": {"per_page", "has_more", "cursor"?}}` — a cursor page. */
export const CursorPage = <S extends Schema.Schema.Any>(item: S) =>
  Schema.Struct({ data: Schema.Array(item), meta: CursorMeta })

export const OffsetMeta = Schema.Struct({
  current_page: Schema.Int,
  per_page: Schema.Int,
  total: Schema.Int,
  total_pages: Schema.Int,
  has_more: Schema.Boolean
})
export type OffsetMeta = typeof OffsetMeta.Type

/** `{"data": [...], "meta": {"current_page", "per_page", "total", "total_pages", "has_more"}}` — admin lists. */
export const OffsetPage = <S extends Schema.Schema.Any>(item: S) =>
  Schema.Struct({ data: Schema.Array(item), meta: OffsetMeta })

export const ok = <A>(data: A): { readonly data: A; readonly meta: {} } => ({ data, meta: {} })

export const offsetMeta = (page: number, perPage: number, total: number): OffsetMeta => {
  const totalPages = Math.max(1, Math.ceil(total / perPage))
  return { current_page: page, per_page: perPage, total, total_pages: totalPages, has_more: page < totalPages }
}

/**
 * Builds a cursor page from up to `perPage + 1` rows fetched in list order: the extra row only says there is
 * more. `cursorOf` turns the last returned row into the value the next page starts after.
 */
export const cursorPage = <A>(
  rows: ReadonlyArray<A>,
  perPage: number,
  cursorOf: (last: A) => string
): { readonly data: ReadonlyArray<A>; readonly meta: CursorMeta } => {
  const hasMore = rows.length > perPage
  const data = hasMore ? rows.slice(0, perPage) : rows
  const last = data[data.length - 1]
  return {
    data,
    meta: hasMore && last !== undefined
      ? { per_page: perPage, has_more: true, cursor: cursorOf(last) }
      : { per_page: perPage, has_more: false }
  }
}
