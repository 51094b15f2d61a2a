import { Schema } from "effect"
import type { FreshBellBatch } from "../FreshBells.js"

/**
 * What travels on the realtime bus: ids only, never content (PostgreSQL NOTIFY payloads stop at 7999 bytes, and
 * every runner reads the bells of its own members itself). With notifications, `notificationIds` and `userIds` are
 * pairs (the bell and its owner); without, `userIds` are members whose counts changed (read or deleted items).
 */
export const BusMessage = Schema.Struct({
  tenantId: Schema.Int.pipe(Schema.positive()),
  notificationIds: Schema.Array(Schema.Int.pipe(Schema.positive())),
  userIds: Schema.Array(Schema.Int.pipe(Schema.positive()))
}).pipe(
  Schema.filter((m) =>
    m.notificationIds.length === 0 || m.notificationIds.length === m.userIds.length ||
    "notificationIds and userIds must be pairs"
  )
)
export type BusMessage = typeof BusMessage.Type

export const decodeBusMessage = Schema.decodeUnknownEither(Schema.parseJson(BusMessage))

/** The PostgreSQL NOTIFY payload limit, less a margin; Redis carries the same messages for uniformity. */
export const MAX_PAYLOAD_BYTES = 7900

const encode = (m: BusMessage) => JSON.stringify(m)

/**
 * A batch as bus payloads, each under {@link MAX_PAYLOAD_BYTES}: ids are ASCII digits, so string length is the
 * byte length, and a pair costs its digits plus two commas.
 */
export const busPayloadsOf = (batch: FreshBellBatch | BusMessage): ReadonlyArray<string> => {
  const pairs = batch.notificationIds.length > 0
  const count = pairs ? batch.notificationIds.length : batch.userIds.length
  const empty = encode({ tenantId: batch.tenantId, notificationIds: [], userIds: [] }).length
  const payloads: Array<string> = []
  let start = 0
  let size = empty
  const flush = (end: number) => {
    if (end === start) return
    payloads.push(encode({
      tenantId: batch.tenantId,
      notificationIds: pairs ? batch.notificationIds.slice(start, end) : [],
      userIds: batch.userIds.slice(start, end)
    }))
    start = end
    size = empty
  }
  for (let i = 0; i < count; i++) {
    const cost = String(batch.userIds[i]).length + 1 + (pairs ? String(batch.notificationIds[i]).length + 1 : 0)
    if (size + cost > MAX_PAYLOAD_BYTES) flush(i)
    size += cost
  }
  flush(count)
  return payloads
}
