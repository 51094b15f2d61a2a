import type { CurrentTenant, Role, UserId, UserStatus } from "@timebank/domain"
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

    return { find } as const
  })
}) {}
