import { Data, Effect, Option, Redacted } from "effect"
import { randomUUID } from "node:crypto"
import { mkdir, writeFile } from "node:fs/promises"
import { join } from "node:path"
import nodemailer from "nodemailer"
import type SMTPTransport from "nodemailer/lib/smtp-transport/index.js"
import { AppConfig } from "../../platform/AppConfig.js"

/** One message ready to go: rendered text and HTML, and its extra headers (List-Unsubscribe …). */
export interface OutgoingMail {
  readonly to: string
  readonly subject: string
  readonly text: string
  readonly html: string
  readonly headers: Readonly<Record<string, string>>
}

export interface SentMail {
  readonly messageId: string
  /** The SMTP server's last answer, or the file the message was written to. */
  readonly detail: string
}

/** The transport did not take the message (server down, recipient refused, disk full). */
export class MailSendFailed extends Data.TaggedError("MailSendFailed")<{ readonly reason: string }> {}

/** SMTP options from `SMTP_URL`: `smtp://user:pass@host:port`, `smtps://…` (TLS at once), `?ignoreTLS=true`. */
export const smtpOptions = (url: string): SMTPTransport.Options => {
  const parsed = new URL(url)
  const secure = parsed.protocol === "smtps:"
  const flag = (name: string) => parsed.searchParams.get(name) === "true"
  return {
    host: parsed.hostname,
    port: parsed.port === "" ? (secure ? 465 : 587) : Number(parsed.port),
    secure,
    ignoreTLS: flag("ignoreTLS"),
    requireTLS: flag("requireTLS"),
    ...(parsed.username === ""
      ? {}
      : { auth: { user: decodeURIComponent(parsed.username), pass: decodeURIComponent(parsed.password) } }),
    // A server that hangs must not hold the queue: each message fails in seconds and is retried later.
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000
  }
}

/** A transport error as one line: the SMTP reply code (or the error code) and the message with the server's answer. */
export const mailFailureReason = (error: unknown): string => {
  if (error instanceof Error) {
    const code = (error as { responseCode?: unknown; code?: unknown }).responseCode ??
      (error as { code?: unknown }).code
    return code === undefined ? error.message : `${String(code)}: ${error.message}`
  }
  return String(error)
}

/**
 * Outgoing mail through nodemailer (decisions D12): SMTP when `SMTP_URL` is set, else every message is written as an
 * `.eml` file under `DATA_DIR/mail` (the development inbox).
 */
export class MailTransport extends Effect.Service<MailTransport>()("MailTransport", {
  scoped: Effect.gen(function*() {
    const config = yield* AppConfig
    const from = config.mailFrom
    const smtpUrl = Option.map(config.smtpUrl, Redacted.value)
    const folder = join(config.dataDir, "mail")

    const smtp = yield* Option.match(smtpUrl, {
      onNone: () => Effect.succeedNone,
      onSome: (url) =>
        Effect.acquireRelease(
          Effect.sync(() => Option.some(nodemailer.createTransport(smtpOptions(url)))),
          (transport) => Effect.sync(() => Option.map(transport, (t) => t.close()))
        )
    })
    const files = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "unix" })

    const send = (mail: OutgoingMail): Effect.Effect<SentMail, MailSendFailed> => {
      const message = {
        from,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        headers: mail.headers
      }
      return Option.match(smtp, {
        onSome: (transport) =>
          Effect.tryPromise({
            try: () => transport.sendMail(message),
            catch: (error) => new MailSendFailed({ reason: mailFailureReason(error) })
          }).pipe(Effect.map((info): SentMail => ({ messageId: info.messageId, detail: info.response }))),
        onNone: () =>
          Effect.tryPromise({
            try: async () => {
              const info = await files.sendMail(message)
              await mkdir(folder, { recursive: true })
              const file = join(folder, `${new Date().toISOString().replace(/[:.]/g, "-")}-${randomUUID()}.eml`)
              await writeFile(file, info.message)
              return { messageId: info.messageId, detail: file }
            },
            catch: (error) => new MailSendFailed({ reason: mailFailureReason(error) })
          })
      }).pipe(Effect.withSpan("MailTransport.send"))
    }

    return {
      kind: Option.isSome(smtp) ? ("smtp" as const) : ("file" as const),
      from,
      folder,
      send
    } as const
  })
}) {}
