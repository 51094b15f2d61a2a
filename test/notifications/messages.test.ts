import { assert, describe, it } from "@effect/vitest"
import { IntlMessageFormat } from "intl-messageformat"
import { de } from "../../packages/server/src/notifications/messages/de.js"
import { en, type MessageKey } from "../../packages/server/src/notifications/messages/en.js"
import { es } from "../../packages/server/src/notifications/messages/es.js"
import { fr } from "../../packages/server/src/notifications/messages/fr.js"
import {
  type Language,
  languageFor,
  LANGUAGES,
  type MessageParams,
  render
} from "../../packages/server/src/notifications/messages/Messages.js"

const catalogues: Record<Language, Readonly<Record<MessageKey, string>>> = { en, de, fr, es }
const KEYS = Object.keys(en) as Array<MessageKey>

type Element = ReturnType<IntlMessageFormat["getAst"]>[number]
const ARGUMENT = new IntlMessageFormat("{a}", "en").getAst()[0]?.type

/**
 * What a message asks of its caller: each parameter with its kind, every `select` option, and every exact (`=N`)
 * plural option. Plural categories (`one`, `few`, …) are left out: they differ by language.
 */
const signature = (elements: ReadonlyArray<Element>, out: Set<string> = new Set()): Set<string> => {
  for (const element of elements) {
    if ("options" in element) {
      const plural = "pluralType" in element
      out.add(`${element.value}:${plural ? "plural" : "select"}`)
      for (const [option, { value }] of Object.entries(element.options)) {
        if (!plural || option.startsWith("=")) out.add(`${element.value}=${option}`)
        signature(value, out)
      }
    } else if ("children" in element) {
      signature(element.children, out)
    } else if (element.type === ARGUMENT && "value" in element) {
      out.add(`${element.value}:argument`)
    }
  }
  return out
}

const signatureOf = (language: Language, key: MessageKey) =>
  [...signature(new IntlMessageFormat(catalogues[language][key], language).getAst())].sort()

const BASE: MessageParams = {
  actor: "Ada Lovelace",
  recipient: "Grace Hopper",
  other: "Grace Hopper",
  target: "Grace Hopper",
  community: "Timebank Lyon",
  organisation: "Red Cross",
  description: "Garden work",
  title: "Repair café",
  when: new Date("2030-03-05T09:00:00Z"),
  snippet: "See you tomorrow",
  reason: "Rain",
  status: "going",
  amount: 3,
  minutes: 30,
  hours: 3,
  rating: 4
}
const NUMBERS = [0, 1, 2, 3, 60, 1440, 10080]
const STATUSES = ["going", "interested", "invited", "waitlisted", "declined"]
const REASONS = ["none", "Rain"]

// Every branch of every plural and select in the catalogues is reached by one of these (no message has two).
const SAMPLES: ReadonlyArray<MessageParams> = [
  ...NUMBERS.map((n) => ({ ...BASE, amount: n, minutes: n, hours: n, rating: n })),
  ...STATUSES.map((status) => ({ ...BASE, status })),
  ...REASONS.map((reason) => ({ ...BASE, reason }))
]

describe("notification messages", () => {
  it("every catalogue has exactly the English keys", () => {
    for (const language of LANGUAGES) {
      assert.deepStrictEqual(Object.keys(catalogues[language]).sort(), [...KEYS].sort(), language)
    }
  })

  it("every translation takes the same parameters, select options and exact plural cases as English", () => {
    for (const language of LANGUAGES) {
      for (const key of KEYS) {
        assert.deepStrictEqual(signatureOf(language, key), signatureOf("en", key), `${language} ${key}`)
      }
    }
  })

  it("every select has an `other` branch", () => {
    for (const language of LANGUAGES) {
      for (const key of KEYS) {
        for (const entry of signatureOf(language, key).filter((s) => s.endsWith(":select"))) {
          const name = entry.slice(0, -":select".length)
          assert.include(signatureOf(language, key), `${name}=other`, `${language} ${key}`)
        }
      }
    }
  })

  it("renders every key in every language without throwing and without leftover braces", () => {
    for (const language of LANGUAGES) {
      for (const key of KEYS) {
        for (const params of SAMPLES) {
          const text = render(key, language, params)
          const where = `${language} ${key} ${JSON.stringify(params)}: ${text}`
          assert.notMatch(text, /[{}]/, where)
          assert.notInclude(text, "undefined", where)
          assert.isAbove(text.trim().length, 0, where)
        }
      }
    }
  })

  it("every text that is more than a placeholder is translated", () => {
    for (const language of LANGUAGES.filter((l) => l !== "en")) {
      for (const key of KEYS.filter((k) => !/^\{\w+\}$/.test(en[k]))) {
        assert.notStrictEqual(render(key, language, BASE), render(key, "en", BASE), `${language} ${key}`)
      }
    }
  })

  it("uses the German plural forms", () => {
    const one = render("transaction_received.title", "de", { actor: "Ada", amount: 1 })
    const three = render("transaction_received.title", "de", { actor: "Ada", amount: 3 })
    assert.strictEqual(one, "Ada hat dir 1 Zeitgutschrift geschickt")
    assert.strictEqual(three, "Ada hat dir 3 Zeitgutschriften geschickt")
    assert.notStrictEqual(one, three)
  })

  it("uses the French singular for 0 and keeps exact cases", () => {
    assert.strictEqual(
      render("transaction_received.title", "fr", { actor: "Ada", amount: 0 }),
      "Ada vous a envoyé 0 crédit"
    )
    assert.strictEqual(
      render("event_reminder.body", "fr", { minutes: 1, when: "5/3, 10:00" }),
      "Commence dans 1 minute, le 5/3, 10:00."
    )
    assert.strictEqual(
      render("event_reminder.body", "es", { minutes: 60, when: "5/3, 10:00" }),
      "Empieza en una hora, el 5/3, 10:00."
    )
  })

  it("shows a time in the recipient's language and the community's time zone", () => {
    const when = new Date("2030-03-05T09:00:00Z")
    const text = render("event_reminder.body", "de", { minutes: 60, when }, "Europe/Berlin")
    assert.match(text, /^Beginnt in einer Stunde, am .*2030.*10:00\.$/)
  })

  it("languageFor picks the member's language when shipped, else the community default, else English", () => {
    assert.strictEqual(languageFor("xx", "de"), "de")
    assert.strictEqual(languageFor("fr", "de"), "fr")
    assert.strictEqual(languageFor(null, "es"), "es")
    assert.strictEqual(languageFor(undefined, "xx"), "en")
  })
})
