import { CurrentTenant } from "@timebank/domain"
import { Effect, Redacted } from "effect"
import { TenantService } from "../tenancy/TenantService.js"
import { UserAccounts } from "./UserAccounts.js"

/**
 * The demo community's admin, with fixed credentials printed at `npm start` and documented in the README, so a
 * first token is one curl away. They are public: the demo tenant is for trying the API, never for real members.
 */
export const DEMO_ADMIN_EMAIL = "admin@demo.timebank.test"
export const DEMO_ADMIN_PASSWORD = "demo-admin-password"

/** The demo community and its admin (`npm start`, `cli seed demo`); seeding again changes nothing. */
export const seedDemo = Effect.fn("Demo.seed")(function*() {
  const { created, tenant } = yield* (yield* TenantService).ensureDemo()
  const admin = yield* (yield* UserAccounts).ensure({
    email: DEMO_ADMIN_EMAIL,
    password: Redacted.make(DEMO_ADMIN_PASSWORD),
    firstName: "Demo",
    lastName: "Admin",
    role: "admin"
  }).pipe(Effect.provideService(CurrentTenant, tenant))
  return {
    tenant,
    created,
    admin: { id: admin.user.id, email: admin.user.email, created: admin.created }
  }
})
