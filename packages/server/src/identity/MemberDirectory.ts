import {
  type CurrentTenant,
  NotFound,
  type Role,
  type UserId,
  type UserStatus,
  ValidationFailed
} from "@timebank/domain"
import { Effect, Option } from "effect"
import { canSignIn } from "./UserRecord.js"
import { UserRepo } from "./UserRepo.js"

/** A member of the current community as other features see one: who they are and whether they may act. */
export interface Member {
  readonly id: UserId
  readonly role: Role
  readonly status: UserStatus
  /** Approved, active and not erased: may sign in, hold credits, own an organisation. */
  readonly canSignIn: boolean
}

/** Identity's answer to "is this a member here, and may they act?" for other features (ledger, volunteering). */
export class MemberDirectory extends Effect.Service<MemberDirectory>()("MemberDirectory", {
  dependencies: [UserRepo.Default],
  effect: Effect.gen(function*() {
    const users = yield* UserRepo

    /** A member of the current community who has not been erased. */
    const find = (userId: number): Effect.Effect<Option.Option<Member>, never, CurrentTenant> =>
      Effect.map(
        users.findById(userId),
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
