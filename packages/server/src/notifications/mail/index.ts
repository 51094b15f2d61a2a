import { Layer } from "effect"
import { MailAdminService } from "./MailAdminService.js"
import { AdminEmailHttpLive, UnsubscribeHttpLive } from "./MailHttp.js"
import { UnsubscribeService } from "./UnsubscribeService.js"

export * from "./AccountMail.js"
export * from "./MailJobs.js"
export * from "./MailSchedule.js"
export * from "./MailScheduler.js"
export * from "./MailSender.js"
export * from "./MailTemplates.js"
export * from "./MailTransport.js"
export * from "./UnsubscribeTokens.js"

/** Unsubscribe links and the admin's e-mail status and test (decisions D12). */
export const MailHttpLive = Layer.merge(UnsubscribeHttpLive, AdminEmailHttpLive).pipe(
  Layer.provide(UnsubscribeService.Default),
  Layer.provide(MailAdminService.Default)
)
