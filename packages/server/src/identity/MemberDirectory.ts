import {
  type CurrentTenant,
  NotFound,
  type Role,
  type UserId,
  type UserStatus,
  ValidationFailed
} from "@timebank/domain"
import { Effect, Option, Schema } from "effect"
import { preparedRead, PreparedReads } from "../platform/PreparedReads.js"
import { decodeFirst } from "../platform/SqlRows.js"
import { canSignIn, UserRow } from "./UserRecord.js"

/** What "is this a member here" needs of a user row: a few columns, not the profile. */
const MemberRow = UserRow.pipe(Schema.pick("id", "role", "status", "is_approved", "deleted_at"))

/** Prepared: every transfer, application and connection request checks the member it names. */
const MEMBER_BY_ID = preparedRead(`
  SELECT id, role, status, is_approved, deleted_at FROM users
  WHERE tenant_id = $1 AND id = $2 AND deleted_at IS NULL`)

const firstMember = decodeFirst(MemberRow)

/** A member of the current community as other features see one: who they are and whether they may act. */
export interface Member {
  readonly id: UserId
  readonly role: Role
  readonly status: UserStatus
  /** Approved, active and not erased: may sign in, hold credits, own an organisation. */
  readonly canSignIn: boolean
}

/**
 * Identity's answer to "is this a member here, and may they act?" for other features (ledger, volunteering). A
 * check before the work, not inside a transaction: its read borrows a connection of its own (PreparedReads).
 */
export class MemberDirectory extends Effect.Service<MemberDirectory>()("MemberDirectory", {
  dependencies: [PreparedReads.Default],
  effect: Effect.gen(function*() {
    const prepared = yield* PreparedReads

    /** A member of the current community who has not been erased. */
    const find = (userId: number): Effect.Effect<Option.Option<Member>, never, CurrentTenant> =>
      Effect.map(
        prepared.rows(MEMBER_BY_ID, [userId]).pipe(firstMember),
        Option.map((row) => ({
          id: row.id,
          role: row.role,
          status: row.status,
          canSignIn: canSignIn(row)
        }))
      )

    /**
     * Another member of this community the caller acts towards, named by the request's `field` (a recipient, a
     * connection's target): the caller themself → 422 `self`; nobody here (unknown, another community's, erased) →
     * 404, so another community's members stay unknown; a member who may not act now (pending, suspended,
     * banned) → 422 `inactive`.
     */
    const requireOtherActive = (
      callerId: number,
      userId: number,
      reasons: { readonly field: string; readonly self: string; readonly inactive: string }
    ): Effect.Effect<Member, NotFound | ValidationFailed, CurrentTenant> =>
      Effect.gen(function*() {
        if (userId === callerId) return yield* ValidationFailed.field(reasons.field, reasons.self)
        const member = yield* find(userId)
        if (Option.isNone(member)) return yield* new NotFound({ message: "Member not found", field: reasons.field })
        if (!member.value.canSignIn) return yield* ValidationFailed.field(reasons.field, reasons.inactive)
        return member.value
      })

    return { find, requireOtherActive } as const
  })
}) {}
