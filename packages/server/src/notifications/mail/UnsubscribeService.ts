import { CurrentTenant, InvalidToken, type Tenant, type Unsubscribed } from "@timebank/domain"
import { Effect, Option } from "effect"
import { MemberDirectory } from "../../identity/MemberDirectory.js"
import { ProfileService } from "../../identity/ProfileService.js"
import { AppConfig } from "../../platform/AppConfig.js"
import { TenantSql } from "../../platform/TenantSql.js"
import { TenantDirectory } from "../../tenancy/TenantDirectory.js"
import { languageFor } from "../messages/Messages.js"
import { PreferencesRepo } from "../PreferencesRepo.js"
import { MailQueueRepo } from "./MailQueueRepo.js"
import { MailRecipients } from "./MailRecipients.js"
import { unsubscribePage } from "./MailTemplates.js"
import { type UnsubscribeClaim, UnsubscribeTokens } from "./UnsubscribeTokens.js"

const invalid = new InvalidToken({ message: "The unsubscribe link is not valid", field: "token" })

/**
 * Unsubscribe links (decisions D12, D12a): the signed token names the member, the community and what to stop, so
 * neither a login nor a tenant header is needed. Showing the page changes nothing; the one-click POST applies it:
 * an `email_*` kind turns that switch off, `digest` sets the member's global frequency to `off` (and drops the
 * digest rows still waiting), `all` does both and turns every e-mail off (`email_enabled`).
 */
export class UnsubscribeService extends Effect.Service<UnsubscribeService>()("UnsubscribeService", {
  dependencies: [
    UnsubscribeTokens.Default,
    TenantDirectory.Default,
    MemberDirectory.Default,
    MailRecipients.Default,
    ProfileService.Default,
    PreferencesRepo.Default,
    MailQueueRepo.Default,
    TenantSql.Default
  ],
  effect: Effect.gen(function*() {
    const tokens = yield* UnsubscribeTokens
    const tenants = yield* TenantDirectory
    const members = yield* MemberDirectory
    const recipients = yield* MailRecipients
    const profiles = yield* ProfileService
    const preferences = yield* PreferencesRepo
    const queue = yield* MailQueueRepo
    const db = yield* TenantSql
    const { publicUrl } = yield* AppConfig

    /** The token's claim and community, when this service signed it and the member is still there. */
    const resolve = (token: string) =>
      Effect.gen(function*() {
        const claim = tokens.verify(token)
        if (Option.isNone(claim)) return yield* invalid
        const tenant = yield* tenants.findById(claim.value.t)
        if (Option.isNone(tenant)) return yield* invalid
        const member = yield* members.find(claim.value.u).pipe(Effect.provideService(CurrentTenant, tenant.value))
        if (Option.isNone(member)) return yield* invalid
        return { claim: claim.value, tenant: tenant.value }
      })

    const page = Effect.fn("Unsubscribe.page")(function*(token: string) {
      const { claim, tenant } = yield* resolve(token)
      const member = yield* recipients.members([claim.u]).pipe(Effect.provideService(CurrentTenant, tenant))
      const language = languageFor(member.get(claim.u)?.language, tenant.settings.default_language)
      const postUrl = `${publicUrl.replace(/\/+$/, "")}/api/v2/notifications/unsubscribe?token=${
        encodeURIComponent(token)
      }`
      return unsubscribePage(language, tenant.name, claim.k, postUrl)
    })

    const stopDigests = (claim: UnsubscribeClaim) =>
      Effect.zipRight(
        preferences.saveGlobalFrequency(claim.u, "off"),
        queue.dropDigests(claim.t, claim.u, "member unsubscribed from digests")
      )

    const applyTo = (claim: UnsubscribeClaim, tenant: Tenant) =>
      db.transaction(Effect.gen(function*() {
        switch (claim.k) {
          case "email_transactions":
          case "email_messages":
          case "email_reviews":
            yield* profiles.updatePreferencesOf(claim.u, { [claim.k]: false })
            return
          case "digest":
            yield* stopDigests(claim)
            return
          case "all":
            yield* profiles.updatePreferencesOf(claim.u, { email_enabled: false })
            yield* stopDigests(claim)
            return
        }
      })).pipe(Effect.provideService(CurrentTenant, tenant))

    const apply = Effect.fn("Unsubscribe.apply")(function*(token: string) {
      const { claim, tenant } = yield* resolve(token)
      yield* applyTo(claim, tenant)
      yield* Effect.logInfo("member unsubscribed").pipe(
        Effect.annotateLogs({ tenant_id: claim.t, user_id: claim.u, kind: claim.k })
      )
      return { kind: claim.k, unsubscribed: true } satisfies Unsubscribed
    })

    return { page, apply } as const
  })
}) {}
