import type { UnsubscribeKind } from "@timebank/domain"
import { type Language, render } from "../messages/Messages.js"
import type { OutgoingMail } from "./MailTransport.js"

/**
 * Every e-mail the service sends is one layout — greeting, content, footer with the unsubscribe link — as text and
 * as HTML, in the recipient's language. Values put into HTML are escaped here, once.
 */

export interface MailItem {
  readonly title: string
  readonly body: string
  readonly link: string | null
}

export interface MailLayout {
  readonly to: string
  readonly language: Language
  readonly community: string
  /** The recipient's first name; null greets without a name. */
  readonly name: string | null
  readonly subject: string
  readonly paragraphs: ReadonlyArray<string>
  readonly items?: ReadonlyArray<MailItem>
  readonly action?: { readonly label: string; readonly url: string }
  /** The link that stops this kind of mail; null for mail that is not a notification (a test to any address). */
  readonly unsubscribeUrl: string | null
}

export const escapeHtml = (value: string): string =>
  value.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" })[c]!)

/** A link of a notification (`/events/12`) as an address outside the service. */
export const absoluteUrl = (publicUrl: string, link: string): string =>
  /^https?:\/\//i.test(link) ? link : `${publicUrl.replace(/\/+$/, "")}/${link.replace(/^\/+/, "")}`

const textOf = (layout: MailLayout): string => {
  const t = (key: Parameters<typeof render>[0], params = {}) => render(key, layout.language, params)
  const lines = [t("mail.greeting", { name: layout.name ?? "none" }), "", ...layout.paragraphs.flatMap((p) => [p, ""])]
  for (const item of layout.items ?? []) {
    lines.push(`- ${item.title}`)
    if (item.body !== "") lines.push(`  ${item.body}`)
    if (item.link !== null) lines.push(`  ${item.link}`)
    lines.push("")
  }
  if (layout.action) lines.push(`${layout.action.label}: ${layout.action.url}`, "")
  lines.push("-- ", t("mail.footer", { community: layout.community }))
  if (layout.unsubscribeUrl !== null) lines.push(`${t("mail.unsubscribe")}: ${layout.unsubscribeUrl}`)
  return lines.join("\n")
}

const htmlOf = (layout: MailLayout): string => {
  const t = (key: Parameters<typeof render>[0], params = {}) => escapeHtml(render(key, layout.language, params))
  const link = (url: string, label: string) => `<a href="${escapeHtml(url)}">${label}</a>`
  const items = (layout.items ?? []).map((item) =>
    `<li><strong>${escapeHtml(item.title)}</strong>` +
    (item.body === "" ? "" : `<br>${escapeHtml(item.body)}`) +
    (item.link === null ? "" : `<br>${link(item.link, t("mail.open", { community: layout.community }))}`) +
    "</li>"
  )
  return [
    "<!DOCTYPE html>",
    `<html lang="${layout.language}"><head><meta charset="utf-8"><title>${escapeHtml(layout.subject)}</title></head>`,
    "<body style=\"font-family:sans-serif;line-height:1.5;color:#222;max-width:40em;margin:auto;padding:1em\">",
    `<p>${t("mail.greeting", { name: layout.name ?? "none" })}</p>`,
    ...layout.paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`),
    items.length === 0 ? "" : `<ul>${items.join("")}</ul>`,
    layout.action ? `<p>${link(layout.action.url, escapeHtml(layout.action.label))}</p>` : "",
    "<hr>",
    `<p style="font-size:small;color:#666">${t("mail.footer", { community: layout.community })}`,
    layout.unsubscribeUrl === null ? "" : `<br>${link(layout.unsubscribeUrl, t("mail.unsubscribe"))}`,
    "</p></body></html>"
  ].join("\n")
}

/** The message of `layout`, with RFC 2369 / RFC 8058 unsubscribe headers when it has an unsubscribe link. */
export const renderMail = (layout: MailLayout): OutgoingMail => ({
  to: layout.to,
  subject: layout.subject,
  text: textOf(layout),
  html: htmlOf(layout),
  headers: layout.unsubscribeUrl === null ? {} : {
    "List-Unsubscribe": `<${layout.unsubscribeUrl}>`,
    "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"
  }
})

/** What every mail to a member shares: who, in which language, from which community, with which unsubscribe link. */
export interface Recipient {
  readonly to: string
  readonly language: Language
  readonly community: string
  readonly name: string | null
  readonly unsubscribeUrl: string | null
}

/** One queued notification (subject and body rendered at queue time) as an instant mail. */
export const notificationMail = (
  recipient: Recipient,
  row: { readonly subject: string; readonly email_body: string; readonly link: string | null },
  publicUrl: string
): OutgoingMail =>
  renderMail({
    ...recipient,
    subject: row.subject,
    paragraphs: [row.email_body],
    ...(row.link === null ? {} : {
      action: {
        label: render("mail.open", recipient.language, { community: recipient.community }),
        url: absoluteUrl(publicUrl, row.link)
      }
    })
  })

/** A member's pending rows of one frequency as one digest mail. */
export const digestMail = (
  recipient: Recipient,
  frequency: "daily" | "monthly",
  rows: ReadonlyArray<{ readonly subject: string; readonly email_body: string; readonly link: string | null }>,
  publicUrl: string
): OutgoingMail => {
  const params = { count: rows.length, community: recipient.community }
  return renderMail({
    ...recipient,
    subject: render(
      frequency === "daily" ? "mail.digest.daily.subject" : "mail.digest.monthly.subject",
      recipient.language,
      params
    ),
    paragraphs: [render("mail.digest.intro", recipient.language, params)],
    items: rows.map((row) => ({
      title: row.subject,
      body: row.email_body,
      link: row.link === null ? null : absoluteUrl(publicUrl, row.link)
    }))
  })
}

export const testMail = (recipient: Recipient, admin: string, transport: "smtp" | "file"): OutgoingMail =>
  renderMail({
    ...recipient,
    subject: render("mail.test.subject", recipient.language, { community: recipient.community }),
    paragraphs: [render("mail.test.body", recipient.language, { admin, transport, community: recipient.community })]
  })

const hoursUntil = (expiresAt: string, now: Date): number =>
  Math.max(1, Math.round((new Date(expiresAt).getTime() - now.getTime()) / 3_600_000))

export const passwordResetMail = (
  recipient: Recipient,
  link: { readonly url: string; readonly expiresAt: string },
  now: Date
): OutgoingMail =>
  renderMail({
    ...recipient,
    subject: render("mail.password_reset.subject", recipient.language, { community: recipient.community }),
    paragraphs: [render("mail.password_reset.body", recipient.language, { hours: hoursUntil(link.expiresAt, now) })],
    action: { label: render("mail.password_reset.action", recipient.language), url: link.url }
  })

export const welcomeMail = (
  recipient: Recipient,
  setPassword: { readonly url: string; readonly expiresAt: string } | null,
  now: Date
): OutgoingMail =>
  renderMail({
    ...recipient,
    subject: render("mail.welcome.subject", recipient.language, { community: recipient.community }),
    paragraphs: [
      render("mail.welcome.body", recipient.language, { community: recipient.community }),
      ...(setPassword === null ? [] : [
        render("mail.welcome.set_password", recipient.language, { hours: hoursUntil(setPassword.expiresAt, now) })
      ])
    ],
    ...(setPassword === null
      ? {}
      : { action: { label: render("mail.welcome.action", recipient.language), url: setPassword.url } })
  })

/** The page behind an unsubscribe link: the question and a one-click form; showing it changes nothing. */
export const unsubscribePage = (
  language: Language,
  community: string,
  kind: UnsubscribeKind,
  postUrl: string
): string => {
  const t = (key: Parameters<typeof render>[0], params = {}) => escapeHtml(render(key, language, params))
  return [
    "<!DOCTYPE html>",
    `<html lang="${language}"><head><meta charset="utf-8">`,
    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">",
    `<title>${t("unsubscribe.title")}</title></head>`,
    "<body style=\"font-family:sans-serif;line-height:1.5;max-width:32em;margin:3em auto;padding:1em\">",
    `<h1>${t("unsubscribe.title")}</h1>`,
    `<p>${t("unsubscribe.question", { kind, community })}</p>`,
    `<form method="post" action="${escapeHtml(postUrl)}">`,
    "<input type=\"hidden\" name=\"List-Unsubscribe\" value=\"One-Click\">",
    `<button type="submit">${t("unsubscribe.button")}</button>`,
    "</form>",
    `<p style="font-size:small;color:#666">${t("unsubscribe.note")}</p>`,
    "</body></html>"
  ].join("\n")
}
