import { Effect, Layer, Option } from "effect"
import { FirstAdminAccounts } from "../tenancy/FirstAdminAccounts.js"
import { hashPassword } from "./Password.js"
import { UserAccounts } from "./UserAccounts.js"

/** Identity's side of tenancy's {@link FirstAdminAccounts}: an active, approved admin of the new community. */
export const FirstAdminAccountsLive = Layer.effect(
  FirstAdminAccounts,
  Effect.map(UserAccounts, (accounts) => ({
    prepare: (admin) =>
      Effect.map(hashPassword(admin.password), (passwordHash) =>
        accounts.insertActive({
          email: admin.email,
          passwordHash,
          firstName: admin.first_name,
          lastName: admin.last_name,
          role: "admin"
        }).pipe(
          Effect.flatMap(Option.match({
            onNone: () => Effect.dieMessage("a tenant created in this transaction already has users"),
            onSome: (user) => Effect.succeed({ id: user.id, email: user.email })
          }))
        ))
  }))
).pipe(Layer.provide(UserAccounts.Default))
