import {
  AlreadyExists,
  Connection,
  type ConnectionDeclined,
  type ConnectionDeleted,
  type ConnectionId,
  CONNECTIONS_PER_PAGE_DEFAULT,
  ConnectionStateConflict,
  DomainEvents,
  type ListConnectionsParams,
  NotFound,
  type RequestConnection,
  type UserId,
  type UserSummary
} from "@timebank/domain"
import { DateTime, Effect, Option } from "effect"
import { MemberDirectory } from "../identity/MemberDirectory.js"
import { UserSummaries } from "../identity/UserSummaries.js"
import { Outbox } from "../platform/Outbox.js"
import { idCursorPage } from "../platform/Paging.js"
import { CommunityMember, requireCommunityMember } from "../platform/Policy.js"
import { TenantSql } from "../platform/TenantSql.js"
import { ConnectionRepo, type ConnectionRow } from "./ConnectionRepo.js"
import {
  ConnectionParty,
  ConnectionTarget,
  requireConnectionParty,
  requireConnectionTarget
} from "./ConnectionsPolicy.js"

export const connectionNotFound = () => NotFound.of("Connection")

const notPending = () => new ConnectionStateConflict({ message: "This request is no longer pending" })

/** Shown for a member the users table no longer answers for (it keeps erased users, so this should not happen). */
const unknownMember = (id: UserId): UserSummary => ({ id, first_name: "Deleted", last_name: "User", avatar_url: null })

/** Connections between members (decisions D14, D14a); the contract gates their routes on `connections`. */
export class ConnectionsService extends Effect.Service<ConnectionsService>()("ConnectionsService", {
  dependencies: [
    ConnectionRepo.Default,
    MemberDirectory.Default,
    UserSummaries.Default,
    Outbox.Default,
    TenantSql.Default
  ],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const repo = yield* ConnectionRepo
    const members = yield* MemberDirectory
    const users = yield* UserSummaries
    const outbox = yield* Outbox

    /** The page's connections as `viewerId` sees them, with the other members' summaries read in one query. */
    const views = (rows: ReadonlyArray<ConnectionRow>, viewerId: number) => {
      const otherOf = (row: ConnectionRow) => (row.requester_id === viewerId ? row.target_id : row.requester_id)
      return Effect.map(users.byIds(rows.map(otherOf)), (summaries) =>
        rows.map((row) => {
          const other = otherOf(row)
          return Connection.make({
            id: row.id,
            status: row.status,
            direction: row.requester_id === viewerId ? "outgoing" : "incoming",
            user: summaries.get(other) ?? unknownMember(other),
            requester_id: row.requester_id,
            target_id: row.target_id,
            created_at: DateTime.unsafeFromDate(row.created_at),
            accepted_at: row.accepted_at === null ? null : DateTime.unsafeFromDate(row.accepted_at)
          })
        }))
    }
    const view = (row: ConnectionRow, viewerId: number) => Effect.map(views([row], viewerId), (all) => all[0]!)

    const find = (id: number) =>
      Effect.flatMap(
        repo.findById(id),
        Option.match({ onNone: () => Effect.fail(connectionNotFound()), onSome: Effect.succeed })
      )

    /** Another member of this community who may act: others are 404 (nobody, or another tenant's), or 422. */
    const requestable = (me: number, userId: number) =>
      members.requireOtherActive(me, userId, {
        field: "user_id",
        self: "you cannot connect with yourself",
        inactive: "this member cannot take connection requests now"
      })

    const request = Effect.fn("Connections.request")(
      function*(input: RequestConnection) {
        const me = yield* CommunityMember
        yield* requestable(me.userId, input.user_id)
        const row = yield* db.transaction(Effect.gen(function*() {
          const inserted = yield* repo.insert(me.userId, input.user_id)
          if (Option.isNone(inserted)) {
            return yield* new AlreadyExists({
              message: "You are already connected with this member, or a request between you is pending",
              field: "user_id"
            })
          }
          const row = inserted.value
          yield* outbox.append(
            new DomainEvents.ConnectionRequested({
              connection_id: row.id,
              requester_id: row.requester_id,
              target_id: row.target_id
            })
          )
          return row
        }))
        return yield* view(row, me.userId)
      },
      requireCommunityMember("connect with members")
    )

    const acceptAsTarget = Effect.gen(function*() {
      const request = yield* ConnectionTarget
      if (request.status !== "pending") return yield* notPending()
      const row = yield* db.transaction(Effect.gen(function*() {
        const accepted = yield* repo.accept(request.id)
        if (Option.isNone(accepted)) return yield* notPending()
        yield* outbox.append(
          new DomainEvents.ConnectionAccepted({
            connection_id: request.id,
            requester_id: request.requester_id,
            target_id: request.target_id
          })
        )
        return accepted.value
      }))
      return yield* view(row, row.target_id)
    })

    const accept = Effect.fn("Connections.accept")(
      function*(id: ConnectionId) {
        return yield* requireConnectionTarget(yield* find(id))(acceptAsTarget)
      },
      requireCommunityMember("connect with members")
    )

    /** Declining deletes the request quietly (no event, no bell): the requester may ask again. */
    const declineAsTarget = Effect.gen(function*() {
      const request = yield* ConnectionTarget
      if (request.status !== "pending") return yield* notPending()
      const deleted = yield* repo.remove(request.id, { pendingOnly: true })
      if (Option.isNone(deleted)) return yield* notPending()
      return { id: request.id, declined: true } satisfies ConnectionDeclined
    })

    const decline = Effect.fn("Connections.decline")(
      function*(id: ConnectionId) {
        return yield* requireConnectionTarget(yield* find(id))(declineAsTarget)
      },
      requireCommunityMember("connect with members")
    )

    const removeAsParty = Effect.gen(function*() {
      const connection = yield* ConnectionParty
      const deleted = yield* repo.remove(connection.id, { pendingOnly: false })
      if (Option.isNone(deleted)) return yield* connectionNotFound()
      return { id: connection.id, deleted: true } satisfies ConnectionDeleted
    })

    const remove = Effect.fn("Connections.delete")(
      function*(id: ConnectionId) {
        return yield* requireConnectionParty(yield* find(id))(removeAsParty)
      },
      requireCommunityMember("connect with members")
    )

    /** One query for the page (both sides merged) and one for the other members. */
    const list = Effect.fn("Connections.list")(
      function*(params: ListConnectionsParams) {
        const me = yield* CommunityMember
        const perPage = params.per_page ?? CONNECTIONS_PER_PAGE_DEFAULT
        const rows = yield* repo.page({
          userId: me.userId,
          status: params.status ?? "accepted",
          before: params.cursor,
          limit: perPage + 1
        })
        return yield* idCursorPage(rows, perPage, (page) => views(page, me.userId))
      },
      requireCommunityMember("connect with members")
    )

    return { request, accept, decline, remove, list } as const
  })
}) {}
