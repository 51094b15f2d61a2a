import { IntlMessageFormat } from "intl-messageformat"
import { de } from "./de.js"
import { en, type MessageKey as BellKey } from "./en.js"
import { es } from "./es.js"
import { fr } from "./fr.js"
import { mail, type MailKey } from "./mail.js"

/** Languages the service ships (decisions D9). */
export const LANGUAGES = ["en", "de", "fr", "es"] as const
export type Language = typeof LANGUAGES[number]

export type MessageParams = Readonly<Record<string, string | number | Date>>

/** Bell and push texts (en.ts and its translations) and e-mail texts (mail.ts). */
export type MessageKey = BellKey | MailKey

const catalogues: Record<Language, Readonly<Record<MessageKey, string>>> = {
  en: { ...en, ...mail.en },
  de: { ...de, ...mail.de },
  fr: { ...fr, ...mail.fr },
  es: { ...es, ...mail.es }
}

export const isLanguage = (value: unknown): value is Language =>
  typeof value === "string" && (LANGUAGES as ReadonlyArray<string>).includes(value)

/** The member's language when the service ships it, else the community's default (decisions D9). */
export const languageFor = (preferred: string | null | undefined, tenantDefault: string): Language =>
  isLanguage(preferred) ? preferred : isLanguage(tenantDefault) ? tenantDefault : "en"

// Compiled once per (language, key): ICU MessageFormat with plural and select forms, from the catalogues.
const compiled = new Map<string, IntlMessageFormat>()

const formatOf = (language: Language, key: MessageKey): IntlMessageFormat => {
  const id = `${language}\u0000${key}`
  let format = compiled.get(id)
  if (format === undefined) {
    format = new IntlMessageFormat(catalogues[language][key], language)
    compiled.set(id, format)
  }
  return format
}

/** How a time reads in a message: the recipient's language, the community's time zone. */
const timeFormats = new Map<string, Intl.DateTimeFormat>()

const formatTime = (at: Date, language: Language, timeZone: string): string => {
  const id = `${language}\u0000${timeZone}`
  let format = timeFormats.get(id)
  if (format === undefined) {
    format = new Intl.DateTimeFormat(language, { dateStyle: "medium", timeStyle: "short", timeZone })
    timeFormats.set(id, format)
  }
  return format.format(at)
}

const withTimes = (params: MessageParams, language: Language, timeZone: string): Record<string, string | number> =>
  Object.fromEntries(
    Object.entries(params).map(([name, value]) => [
      name,
      value instanceof Date ? formatTime(value, language, timeZone) : value
    ])
  )

/** The text of `key` in `language`, with `params` put in (times shown in `timeZone`, default UTC). */
export const render = (
  key: MessageKey,
  language: Language,
  params: MessageParams = {},
  timeZone = "UTC"
): string => {
  try {
    const text = formatOf(language, key).format(withTimes(params, language, timeZone))
    return typeof text === "string" ? text : String(text)
  } catch {
    // A parameter the text needs is missing (a bug in a rule): English, else the bare template, rather than
    // failing the whole dispatch and holding up every later event behind it.
    return language === "en" ? catalogues.en[key] : render(key, "en", params, timeZone)
  }
}
