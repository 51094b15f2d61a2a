import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { ApiError, Forbidden, httpError } from "../http/ApiError.js"
import { DataEnvelope } from "../http/Envelope.js"
import { Authentication } from "../identity/Authentication.js"
import { TenantMiddleware } from "../tenancy/TenancyApi.js"

/** What an unsubscribe link turns off (decisions D12): one e-mail switch, the digests, or every e-mail. */
export const UnsubscribeKind = Schema.Literal("all", "email_transactions", "email_messages", "email_reviews", "digest")
export type UnsubscribeKind = typeof UnsubscribeKind.Type

/** The unsubscribe token is malformed, was not signed by this service, or names no member. */
export class InvalidToken extends ApiError<InvalidToken>()("InvalidToken", "INVALID_TOKEN", 400) {}

export const UnsubscribeParams = Schema.Struct({
  token: Schema.String.pipe(Schema.maxLength(1000)).annotations({
    description: "The signed token of the e-mail's unsubscribe link"
  })
})

/** RFC 8058's one-click body, `List-Unsubscribe=One-Click`, form-encoded. */
export const OneClickBody = Schema.Struct({ "List-Unsubscribe": Schema.Literal("One-Click") }).pipe(
  HttpApiSchema.withEncoding({ kind: "UrlParams" })
)

export const Unsubscribed = Schema.Struct({ kind: UnsubscribeKind, unsubscribed: Schema.Literal(true) })
export type Unsubscribed = typeof Unsubscribed.Type

const HtmlPage = HttpApiSchema.Text({ contentType: "text/html; charset=utf-8" }).annotations({
  description: "A small HTML page in the member's language"
})

/**
 * Unsubscribe links of e-mails (decisions D12, D12a): no login and no tenant header, the signed token names the
 * member, the community and what to stop. GET only shows the question; POST (RFC 8058 one-click) applies it.
 */
export class UnsubscribeApi extends HttpApiGroup.make("notificationsUnsubscribe")
  .annotate(OpenApi.Title, "Notifications: unsubscribe")
  .annotate(OpenApi.Description, "E-mail unsubscribe links; the signed token is the only credential")
  .add(
    HttpApiEndpoint.get("page", "/api/v2/notifications/unsubscribe")
      .annotate(OpenApi.Summary, "Unsubscribe page")
      .annotate(OpenApi.Description, "Asks for confirmation; changes nothing")
      .setUrlParams(UnsubscribeParams)
      .addSuccess(HtmlPage)
      .addError(httpError(InvalidToken))
  )
  .add(
    HttpApiEndpoint.post("apply", "/api/v2/notifications/unsubscribe")
      .annotate(OpenApi.Summary, "Unsubscribe (one click)")
      .annotate(OpenApi.Description, "RFC 8058: the token in the query, `List-Unsubscribe=One-Click` as form body")
      .setUrlParams(UnsubscribeParams)
      .setPayload(OneClickBody)
      .addSuccess(DataEnvelope(Unsubscribed))
      .addError(httpError(InvalidToken))
  )
{}

export const MailTransportKind = Schema.Literal("smtp", "file").annotations({
  description: "`smtp` when SMTP_URL is set, else `file` (`.eml` files under DATA_DIR/mail)"
})

const Counts = Schema.Struct({ pending: Schema.Int, sent: Schema.Int, failed: Schema.Int })

export const MailFailure = Schema.Struct({
  id: Schema.Int,
  status: Schema.Literal("pending", "failed"),
  attempts: Schema.Int,
  error: Schema.String,
  retry_at: Schema.NullOr(Schema.DateTimeUtc).annotations({ description: "Next attempt; null once failed" })
})

export const MailStatus = Schema.Struct({
  transport: MailTransportKind,
  from: Schema.String,
  queue: Counts.annotations({
    description: "All of this community's outgoing e-mail by status: notification e-mails and account mails"
  }),
  account_mail: Counts.annotations({
    description: "The welcome and password-reset mails among them (counted in `queue` too)"
  }),
  last_sent_at: Schema.NullOr(Schema.DateTimeUtc),
  last_error: Schema.NullOr(Schema.String).annotations({
    description: "The transport's answer to the community's latest failed send; null when none failed"
  }),
  last_failure: Schema.NullOr(MailFailure)
})
export type MailStatus = typeof MailStatus.Type

export const TestMailInput = Schema.Struct({
  to: Schema.optionalWith(
    Schema.Trim.pipe(
      Schema.maxLength(254),
      Schema.pattern(/^[^\s@]+@[^\s@]+$/, { message: () => "must be an e-mail address" })
    ),
    { exact: true }
  ).annotations({ description: "Default: the calling admin's own address" })
})
export type TestMailInput = typeof TestMailInput.Type

export const TestMailResult = Schema.Struct({
  ok: Schema.Boolean.annotations({ description: "Whether the transport took the message (the same as `sent`)" }),
  sent: Schema.Boolean,
  to: Schema.String,
  transport: MailTransportKind,
  message_id: Schema.NullOr(Schema.String),
  detail: Schema.String.annotations({ description: "The server's answer, the file written, or the error" }),
  error: Schema.optionalWith(Schema.String, { exact: true }).annotations({
    description: "Only when not sent: why the transport refused"
  })
})
export type TestMailResult = typeof TestMailResult.Type

export const ProviderCheck = Schema.Struct({
  ok: Schema.Boolean,
  transport: MailTransportKind,
  message: Schema.optionalWith(Schema.String, { exact: true }).annotations({
    description: "When ok: what the SMTP server answered (its greeting), or where the file transport writes"
  }),
  error: Schema.optionalWith(Schema.String, { exact: true }).annotations({
    description: "When not ok: the error, with the server's answer when it gave one"
  })
})
export type ProviderCheck = typeof ProviderCheck.Type

/** The community's e-mail as its admins see it, and a test of the real transport. */
export class AdminEmailApi extends HttpApiGroup.make("adminEmail")
  .annotate(OpenApi.Title, "Admin: e-mail")
  .annotate(OpenApi.Description, "Outgoing e-mail: transport, queue and a test mail; tenant admins")
  .add(
    HttpApiEndpoint.get("status", "/api/v2/admin/email/status")
      .annotate(OpenApi.Summary, "E-mail status")
      .annotate(OpenApi.Description, "The transport, the sender address, this community's queue and its last failure")
      .addSuccess(DataEnvelope(MailStatus))
      .addError(httpError(Forbidden))
  )
  .add(
    HttpApiEndpoint.post("test", "/api/v2/admin/email/test")
      .annotate(OpenApi.Summary, "Send a test e-mail")
      .annotate(OpenApi.Description, "Sends at once through the configured transport and says what happened")
      .setPayload(TestMailInput)
      .addSuccess(DataEnvelope(TestMailResult))
      .addError(httpError(Forbidden))
  )
  .add(
    HttpApiEndpoint.post("testProvider", "/api/v2/admin/email/test-provider")
      .annotate(OpenApi.Summary, "Check the e-mail provider")
      .annotate(
        OpenApi.Description,
        "Opens a connection to the SMTP server as sending would (greeting, EHLO, TLS, login) and reports its " +
          "answer; sends nothing. With the file transport, checks that the mail folder is writable"
      )
      .addSuccess(DataEnvelope(ProviderCheck))
      .addError(httpError(Forbidden))
  )
  .middleware(Authentication)
  .middleware(TenantMiddleware)
{}
