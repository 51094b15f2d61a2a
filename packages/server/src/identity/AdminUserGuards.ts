import { type Actor, Forbidden, NotFound, type UserId } from "@timebank/domain"
import { Effect, Option } from "effect"
import { isPlatformAdmin } from "../platform/Policy.js"
import type { AdminUserRepo } from "./AdminUserRepo.js"
import type { UserRow } from "./UserRecord.js"

/** The user, or 404 `NOT_FOUND` on `User`. */
export const found = <A>(row: Option.Option<A>) =>
  Option.match(row, { onNone: () => Effect.fail(NotFound.of("User")), onSome: Effect.succeed })

/** Admins never act against their own account: they would lock themselves out or bypass self-service checks. */
export const notSelf = (admin: Actor, id: UserId) =>
  admin.userId === id
    ? Effect.fail(new Forbidden({ message: "Admins cannot do this to their own account" }))
    : Effect.void

/** Accounts with platform powers are changed by platform super-admins only, never by a community admin. */
const mayChange = (admin: Actor, user: UserRow) =>
  (user.is_super_admin || user.is_god) && !isPlatformAdmin(admin)
    ? Effect.fail(new Forbidden({ message: "Only platform super-admins may change this account" }))
    : Effect.void

/** A live user of this tenant that the admin may change. */
export const changeableIn = (repo: AdminUserRepo) => (admin: Actor, id: UserId) =>
  Effect.flatMap(repo.findById(id), found).pipe(Effect.tap((user) => mayChange(admin, user)))
