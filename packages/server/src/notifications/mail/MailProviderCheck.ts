import type { ProviderCheck } from "@timebank/domain"
import { Effect, Option } from "effect"
import { constants } from "node:fs"
import { access, mkdir } from "node:fs/promises"
import nodemailer from "nodemailer"
import type { Logger } from "nodemailer/lib/shared/index.js"
import { mailFailureReason, smtpOptions } from "./MailTransport.js"

/** A nodemailer logger that keeps only what the server said (the transaction log's `server` lines). */
const serverLines = () => {
  const heard: Array<string> = []
  const capture = (entry: unknown, message: unknown) => {
    if (typeof entry === "object" && entry !== null && (entry as { tnx?: unknown }).tnx === "server") {
      heard.push(String(message))
    }
  }
  const logger: Logger = {
    trace: capture,
    debug: capture,
    info: capture,
    warn: capture,
    error: capture,
    fatal: capture
  }
  return { heard, logger }
}

/**
 * nodemailer's `verify()` on a connection of its own (the sending transport is left alone): greeting, EHLO, TLS
 * and login as a send would do them, then QUIT. Its answer is the server's greeting.
 */
const verifySmtp = (url: string): Effect.Effect<ProviderCheck> => {
  const { heard, logger } = serverLines()
  const options = smtpOptions(url)
  return Effect.acquireUseRelease(
    Effect.sync(() => nodemailer.createTransport({ ...options, logger, transactionLog: true })),
    (transport) =>
      Effect.tryPromise({ try: () => transport.verify(), catch: mailFailureReason }).pipe(
        Effect.match({
          onSuccess: (): ProviderCheck => ({
            ok: true,
            transport: "smtp",
            message: `${options.host}:${options.port} answered: ${heard[0] ?? "(no greeting)"}`
          }),
          onFailure: (error): ProviderCheck => ({ ok: false, transport: "smtp", error })
        })
      ),
    (transport) => Effect.sync(() => transport.close())
  )
}

/** The file transport works when its folder exists (or can be made) and is writable. */
const checkFolder = (folder: string): Effect.Effect<ProviderCheck> =>
  Effect.tryPromise({
    try: async () => {
      await mkdir(folder, { recursive: true })
      await access(folder, constants.W_OK)
    },
    catch: mailFailureReason
  }).pipe(Effect.match({
    onSuccess: (): ProviderCheck => ({
      ok: true,
      transport: "file",
      message: `file transport: messages are written as .eml files to ${folder}`
    }),
    onFailure: (error): ProviderCheck => ({ ok: false, transport: "file", error: `file transport: ${error}` })
  }))

/** Checks the configured e-mail provider without sending anything (D17 `POST /admin/email/test-provider`). */
export const checkProvider = (smtpUrl: Option.Option<string>, folder: string): Effect.Effect<ProviderCheck> =>
  Option.match(smtpUrl, { onNone: () => checkFolder(folder), onSome: verifySmtp }).pipe(
    Effect.withSpan("MailAdmin.checkProvider")
  )
