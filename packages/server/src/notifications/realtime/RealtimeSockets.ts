import { Effect } from "effect"
import { RealtimeConfig } from "./RealtimeConfig.js"

/** Close codes of realtime sockets (4000–4999 are the application's own). */
export const RealtimeCloseCodes = {
  /** Bad or missing token, or no such tenant (decisions D12). */
  unauthorised: 4401,
  /** The member opened more sockets than allowed: their oldest is closed to make room for the new one. */
  tooManyForMember: 4429,
  /** This process holds as many sockets as it may: the new one is refused; another runner may take it. */
  processFull: 1013
} as const

/** One open socket of this process: frames go into its own queue, written by its connection's fiber. */
export interface LocalSocket {
  readonly tenantId: number
  readonly userId: number
  /** Never blocks: a socket that falls far behind loses its oldest frames. */
  readonly send: (frame: string) => void
  readonly close: (code: number, reason: string) => void
}

const keyOf = (tenantId: number, userId: number) => `${tenantId}:${userId}`

/**
 * The sockets this process holds, by member. Bounded per member (the oldest goes when one too many connects) and
 * per process (a new socket beyond the bound is refused).
 */
export class RealtimeSockets extends Effect.Service<RealtimeSockets>()("RealtimeSockets", {
  dependencies: [RealtimeConfig.Default],
  effect: Effect.gen(function*() {
    const { maxSockets, maxSocketsPerUser } = yield* RealtimeConfig
    /** Oldest first. */
    const byMember = new Map<string, Array<LocalSocket>>()
    const membersByTenant = new Map<number, Set<number>>()
    let total = 0

    const remove = (socket: LocalSocket): boolean => {
      const key = keyOf(socket.tenantId, socket.userId)
      const list = byMember.get(key)
      const at = list?.indexOf(socket) ?? -1
      if (list === undefined || at === -1) return false
      list.splice(at, 1)
      total--
      if (list.length === 0) {
        byMember.delete(key)
        const members = membersByTenant.get(socket.tenantId)
        members?.delete(socket.userId)
        if (members?.size === 0) membersByTenant.delete(socket.tenantId)
      }
      return true
    }

    /** Adds `socket`, closing the member's oldest beyond the bound; `false` when the process is full. */
    const register = (socket: LocalSocket): boolean => {
      const key = keyOf(socket.tenantId, socket.userId)
      const list = byMember.get(key) ?? []
      while (list.length >= maxSocketsPerUser) {
        const oldest = list[0]!
        remove(oldest)
        oldest.close(RealtimeCloseCodes.tooManyForMember, "too many sockets for this member; the oldest was closed")
      }
      if (total >= maxSockets) return false
      list.push(socket)
      byMember.set(key, list)
      const members = membersByTenant.get(socket.tenantId) ?? new Set<number>()
      members.add(socket.userId)
      membersByTenant.set(socket.tenantId, members)
      total++
      return true
    }

    return {
      register: (socket: LocalSocket) => Effect.sync(() => register(socket)),
      unregister: (socket: LocalSocket) => Effect.sync(() => void remove(socket)),
      has: (tenantId: number, userId: number) => byMember.has(keyOf(tenantId, userId)),
      send: (tenantId: number, userId: number, frame: string) => {
        for (const socket of byMember.get(keyOf(tenantId, userId)) ?? []) socket.send(frame)
      },
      /** The members with a socket here, by tenant (for a counts refresh after the bus reconnected). */
      members: (): ReadonlyArray<{ readonly tenantId: number; readonly userIds: ReadonlyArray<number> }> =>
        [...membersByTenant].map(([tenantId, users]) => ({ tenantId, userIds: [...users] })),
      size: () => total
    } as const
  })
}) {}
