import { Layer } from "effect"
import { AdminUsersHttpLive } from "./AdminUsersHttp.js"
import { AdminUsersService } from "./AdminUsersService.js"
import { AuthHttpLive, SessionHttpLive, UsersHttpLive } from "./IdentityHttp.js"
import { PasswordResetService } from "./PasswordResetService.js"
import { ProfileService } from "./ProfileService.js"

export * from "../platform/Policy.js"
export * from "./AdminUserRepo.js"
export * from "./AdminUsersService.js"
export * from "./AuthenticationLive.js"
export * from "./DemoSeed.js"
export * from "./FirstAdminAccountsLive.js"
export * from "./IdentityJobs.js"
export * from "./IdentityService.js"
export * from "./LoginThrottle.js"
export * from "./MailOutbox.js"
export * from "./MemberDirectory.js"
export * from "./MemberReports.js"
export * from "./MemberStats.js"
export * from "./Password.js"
export * from "./PasswordResetRepo.js"
export * from "./PasswordResetService.js"
export * from "./PresentedCredentials.js"
export * from "./ProfileService.js"
export * from "./SessionRepo.js"
export * from "./TenantMiddlewareLive.js"
export * from "./Tokens.js"
export * from "./UserAccounts.js"
export * from "./UserImport.js"
export * from "./UserRecord.js"
export * from "./UserRepo.js"
export * from "./UserSummaries.js"

/** Registration, login, sessions and profiles. */
export const IdentityHttpLive = Layer.mergeAll(AuthHttpLive, SessionHttpLive, UsersHttpLive).pipe(
  Layer.provide(Layer.merge(ProfileService.Default, PasswordResetService.Default))
)

/** The admin users API (tenant admins and platform super-admins). */
export const AdminUsersLive = AdminUsersHttpLive.pipe(Layer.provide(AdminUsersService.Default))
