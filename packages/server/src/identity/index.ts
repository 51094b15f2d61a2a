import { Layer } from "effect"
import { AuthHttpLive, SessionHttpLive, UsersHttpLive } from "./IdentityHttp.js"
import { ProfileService } from "./ProfileService.js"

export * from "./AuthenticationLive.js"
export * from "./IdentityService.js"
export * from "./LoginThrottle.js"
export * from "./Password.js"
export * from "./Policy.js"
export * from "./ProfileService.js"
export * from "./SessionRepo.js"
export * from "./Tokens.js"
export * from "./UserRecord.js"
export * from "./UserRepo.js"

/** Registration, login, sessions and profiles. */
export const IdentityHttpLive = Layer.mergeAll(AuthHttpLive, SessionHttpLive, UsersHttpLive).pipe(
  Layer.provide(ProfileService.Default)
)
