import {
  CurrentTenant,
  DomainEvents,
  PasswordResetTokenExpired,
  PasswordResetTokenInvalid,
  PasswordResetTokenUsed,
  type Tenant
} from "@timebank/domain"
import { Effect, Option, Queue } from "effect"
import { Outbox } from "../platform/Outbox.js"
import { TenantSql } from "../platform/TenantSql.js"
import { AdminUserRepo } from "./AdminUserRepo.js"
import { LoginThrottle } from "./LoginThrottle.js"
import { MailOutbox, recipientData } from "./MailOutbox.js"
import { hashPassword } from "./Password.js"
import { MEMBER_PASSWORD_RESET_SECONDS, PasswordResetRepo } from "./PasswordResetRepo.js"
import { SessionRepo } from "./SessionRepo.js"
import { hashToken, newToken } from "./Tokens.js"
import { canSignIn } from "./UserRecord.js"
import { UserRepo } from "./UserRepo.js"

/** Reset requests waiting for the mailer fiber; past this many, new ones are dropped (and logged). */
export const PASSWORD_RESET_QUEUE_CAPACITY = 1_000

interface ResetRequest {
  readonly tenant: Tenant
  readonly email: string
}

export interface PasswordResetInput {
  readonly token: string
  readonly password: string
}

const invalid = () =>
  new PasswordResetTokenInvalid({ message: "This password reset link is not valid", field: "token" })
const used = () =>
  new PasswordResetTokenUsed({
    message: "This password reset link was used already or replaced by a newer one; ask for a new link",
    field: "token"
  })
const expired = () =>
  new PasswordResetTokenExpired({ message: "This password reset link has expired; ask for a new link", field: "token" })

/**
 * Password reset a member asks for (`POST /api/v2/auth/password-reset` and `/confirm`).
 *
 * A request is answered before any account is looked up: it is queued for one mailer fiber, which looks the e-mail
 * up and, for an active account of the community, stores a new token's SHA-256 (60 minutes; earlier unused tokens
 * retired) and queues the `password_reset` mail in one transaction. So the answer — its body and its timing — is
 * the same for every e-mail, and a flood of requests waits in a bounded queue instead of holding connections. One
 * fiber handles the requests in order, so they never race each other.
 */
export class PasswordResetService extends Effect.Service<PasswordResetService>()("PasswordResetService", {
  dependencies: [
    UserRepo.Default,
    AdminUserRepo.Default,
    SessionRepo.Default,
    PasswordResetRepo.Default,
    MailOutbox.Default,
    Outbox.Default,
    TenantSql.Default,
    LoginThrottle.Default
  ],
  scoped: Effect.gen(function*() {
    const db = yield* TenantSql
    const users = yield* UserRepo
    const accounts = yield* AdminUserRepo
    const sessions = yield* SessionRepo
    const resets = yield* PasswordResetRepo
    const mail = yield* MailOutbox
    const outbox = yield* Outbox
    const throttle = yield* LoginThrottle

    /** Mails a reset link to the account with this e-mail, if the community has an active one. */
    const sendLink = Effect.fn("PasswordReset.sendLink")(function*(email: string) {
      const tenant = yield* CurrentTenant
      const found = yield* users.findByEmail(email)
      if (Option.isNone(found) || !canSignIn(found.value)) return false
      const user = found.value
      const token = newToken()
      yield* db.transaction(Effect.gen(function*() {
        const expiresAt = yield* resets.issue(user.id, hashToken(token), MEMBER_PASSWORD_RESET_SECONDS)
        yield* mail.queue({
          userId: user.id,
          to: user.email,
          template: "password_reset",
          data: {
            ...recipientData(user, tenant),
            token,
            expires_at: expiresAt.toISOString(),
            requested_by: "member"
          }
        })
      }))
      return true
    })

    const requests = yield* Effect.acquireRelease(
      Queue.dropping<ResetRequest>(PASSWORD_RESET_QUEUE_CAPACITY),
      Queue.shutdown
    )
    yield* Queue.take(requests).pipe(
      Effect.flatMap((request) =>
        sendLink(request.email).pipe(
          Effect.provideService(CurrentTenant, request.tenant),
          // One failure (the database away, say) costs that request only; the member can ask again.
          Effect.catchAllCause((cause) =>
            Effect.logError("password reset link not sent", cause).pipe(
              Effect.annotateLogs({ tenant_id: request.tenant.id })
            )
          )
        )
      ),
      Effect.forever,
      Effect.forkScoped
    )

    /** Accepts the request; whether a mail goes out is decided later, by the mailer fiber. */
    const request = Effect.fn("PasswordReset.request")(function*(email: string) {
      const tenant = yield* CurrentTenant
      if (!(yield* Queue.offer(requests, { tenant, email }))) {
        yield* Effect.logWarning("password reset queue full; request dropped").pipe(
          Effect.annotateLogs({ tenant_id: tenant.id })
        )
      }
      return { accepted: true as const }
    })

    /**
     * Sets the new password with a token of this community: the token is used up, the account's other tokens are
     * retired and its sessions revoked, all in one transaction; then its failed logins are forgotten.
     */
    const confirm = Effect.fn("PasswordReset.confirm")(function*(input: PasswordResetInput) {
      const tokenHash = hashToken(input.token)
      const found = yield* resets.find(tokenHash)
      if (Option.isNone(found)) return yield* invalid()
      if (found.value.used) return yield* used()
      if (found.value.expired) return yield* expired()
      const userId = found.value.userId
      // Hashing costs tens of milliseconds of CPU, so only a token that looks usable gets this far.
      const passwordHash = yield* hashPassword(input.password)
      const email = yield* db.transaction(Effect.gen(function*() {
        if (!(yield* resets.consume(tokenHash))) return yield* used()
        const user = yield* accounts.setPassword(userId, passwordHash)
        if (Option.isNone(user)) return yield* invalid()
        yield* sessions.revokeAllOf(userId)
        yield* resets.revokeAllOf(userId)
        yield* outbox.append(new DomainEvents.UserPasswordReset({ user_id: userId }))
        return user.value.email
      }))
      yield* throttle.clear(email)
      return { password_changed: true as const }
    })

    return { request, confirm } as const
  })
}) {}
