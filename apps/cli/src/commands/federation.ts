import {
  ApiKeyStatus,
  ApiKeyView,
  CreatedApiKey,
  CurrentTenant,
  FederationPartner,
  PartnerDiagnosis,
  PartnerStatus,
  type Tenant,
  ValidationFailed,
  WebhookDelivery
} from "@timebank/domain"
import { ApiKeysService, DeliveriesService, PartnersService } from "@timebank/server"
import { DateTime, Effect, Record as Rec, Schema } from "effect"
import type { AnyCommand, Command, Flags, OptionSpec } from "../Command.js"
import { ExitCode } from "../ExitCode.js"
import { allPages, findTenant, idOf, tenantOption } from "../Operator.js"
import { table } from "../Render.js"

/**
 * `federation …` (decisions D3, D13): what operators do for a community's federation, through the same services and
 * rules as the admin routes: inbound API keys, the community's partners, and the manual retry of an outbound webhook
 * delivery.
 */

/** The key's admin view as `--json` prints it (the admin API's shape, no secrets). */
const keyJson = (key: ApiKeyView) => Schema.encodeSync(ApiKeyView)(key)

const keyLine = (key: ApiKeyView) => `API key ${key.id} "${key.name}" (${key.key_prefix}…, ${key.status})`

const keysTable = (keys: ReadonlyArray<ApiKeyView>) =>
  table(
    ["ID", "PREFIX", "NAME", "STATUS", "SCOPES", "PARTNER", "RATE/MIN", "EXPIRES", "LAST USED"],
    keys.map((k) => [
      String(k.id),
      k.key_prefix,
      k.name,
      k.status,
      k.scopes.join(","),
      k.partner_id === null ? "-" : String(k.partner_id),
      String(k.rate_limit_per_minute),
      k.expires_at === null ? "-" : DateTime.formatIso(k.expires_at),
      k.last_used_at === null ? "-" : DateTime.formatIso(k.last_used_at)
    ])
  )

/** A whole number as one, anything else as given, so that the service's validation names the field. */
const numberOr = (value: string | boolean | undefined) =>
  typeof value === "string" && /^-?[0-9]+$/.test(value) ? Number(value) : value

/** `--scopes` takes scopes separated by commas or spaces. */
const scopesOf = (value: string | boolean | undefined) =>
  typeof value === "string" ? value.split(/[\s,]+/).filter((s) => s !== "") : value

const inTenant = (flags: Flags) => <A, E, R>(f: (tenant: Tenant) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(
    findTenant(String(flags["tenant"])),
    (tenant) => Effect.provideService(f(tenant), CurrentTenant, tenant)
  )

const tenantLabel = (t: Tenant) => `tenant ${t.id} "${t.slug}"`

const option = (name: string, value: string, description: string): OptionSpec => ({
  name,
  type: "string",
  value,
  description
})

const idArgument = (what: string) => ({ name: "ID", description: `the ${what}'s id` })

export const federationKeysCreate: Command<"federation"> = {
  name: "federation keys create",
  summary: "issue an inbound federation API key (the key and its signing secret are shown only now)",
  positionals: [],
  options: [
    tenantOption,
    { ...option("name", "N", "a name for people"), required: true },
    { ...option("scopes", "S[,S…]", "what the key may do, separated by commas or spaces"), required: true },
    option("partner", "ID", "the partner platform the key belongs to"),
    option("rate-limit", "N", "requests per minute it may make"),
    { name: "signing", type: "boolean", description: "also issue a signing secret: its requests must be signed" },
    option("expires-at", "ISO-8601", "when it stops working")
  ],
  examples: [
    "federation keys create --tenant demo --name \"Partner X\" --scopes members:read,listings:read --signing",
    "federation keys create --tenant 7 --name Sync --scopes groups:read --expires-at 2027-01-01T00:00:00Z --json"
  ],
  exits: [[ExitCode.notFound, "no such tenant or partner"]],
  needs: "federation",
  run: (_, flags) =>
    inTenant(flags)((tenant) =>
      Effect.gen(function*() {
        const input = Rec.filter({
          name: flags["name"],
          scopes: scopesOf(flags["scopes"]),
          partner_id: numberOr(flags["partner"]),
          rate_limit_per_minute: numberOr(flags["rate-limit"]),
          signing: flags["signing"],
          expires_at: flags["expires-at"]
        }, (value) => value !== undefined)
        const key = yield* Effect.flatMap(ApiKeysService, (keys) => keys.operator.create(input))
        return {
          json: Schema.encodeSync(CreatedApiKey)(key),
          text: [
            `created ${keyLine(key)} in ${tenantLabel(tenant)}`,
            `api_key: ${key.api_key} (shown only now)`,
            ...(key.signing_secret === undefined ? [] : [`signing_secret: ${key.signing_secret} (shown only now)`])
          ].join("\n")
        }
      })
    )
}

const LIST_PAGE = 100

export const federationKeysList: Command<"federation"> = {
  name: "federation keys list",
  summary: "list a tenant's inbound federation API keys, newest first (no secrets)",
  positionals: [],
  options: [tenantOption, option("status", "active|revoked", "only keys with this status")],
  examples: ["federation keys list --tenant demo", "federation keys list --tenant 7 --status active --json"],
  exits: [[ExitCode.notFound, "no such tenant"]],
  needs: "federation",
  run: (_, flags) =>
    inTenant(flags)(() =>
      Effect.gen(function*() {
        const keys = yield* ApiKeysService
        const status = flags["status"]
        if (status !== undefined && !Schema.is(ApiKeyStatus)(status)) {
          return yield* ValidationFailed.field("status", "must be active or revoked")
        }
        const all = yield* allPages(
          "API keys",
          (page) => keys.operator.list({ page, per_page: LIST_PAGE, ...(status === undefined ? {} : { status }) })
        )
        return { json: all.map(keyJson), text: all.length === 0 ? "no API keys" : keysTable(all) }
      })
    )
}

export const federationKeysRevoke: Command<"federation"> = {
  name: "federation keys revoke",
  summary: "revoke an inbound federation API key: it is refused from now on",
  positionals: [idArgument("key")],
  options: [tenantOption],
  examples: ["federation keys revoke 12 --tenant demo", "federation keys revoke 12 --tenant 7 --json"],
  exits: [
    [ExitCode.notFound, "no such tenant, or no such key in it"],
    [ExitCode.refused, "ALREADY_REVOKED: the key was revoked before"]
  ],
  needs: "federation",
  run: ([id], flags) =>
    inTenant(flags)((tenant) =>
      Effect.gen(function*() {
        const keyId = yield* idOf(id!, "API key")
        const key = yield* Effect.flatMap(ApiKeysService, (keys) => keys.operator.revoke(keyId))
        return { json: keyJson(key), text: `revoked ${keyLine(key)} in ${tenantLabel(tenant)}` }
      })
    )
}

/** The partner's admin view as `--json` prints it: credentials only as the names that are set. */
const partnerJson = (partner: FederationPartner) => Schema.encodeSync(FederationPartner)(partner)

const partnersTable = (partners: ReadonlyArray<FederationPartner>) =>
  table(
    ["ID", "NAME", "PROTOCOL", "STATUS", "BASE URL", "WEBHOOK URL", "CREDENTIALS", "CREATED"],
    partners.map((p) => {
      const credentials = Object.keys(p.credentials).sort()
      return [
        String(p.id),
        p.name,
        p.protocol_type,
        p.status,
        p.base_url,
        p.webhook_url ?? "-",
        credentials.length === 0 ? "-" : credentials.join(","),
        DateTime.formatIso(p.created_at)
      ]
    })
  )

export const federationPartnersList: Command<"federation"> = {
  name: "federation partners list",
  summary: "list a tenant's partner platforms, newest first (which credentials are set, never their values)",
  positionals: [],
  options: [tenantOption, option("status", "pending|active|suspended|failed", "only partners with this status")],
  examples: ["federation partners list --tenant demo", "federation partners list --tenant 7 --status active --json"],
  exits: [[ExitCode.notFound, "no such tenant"]],
  needs: "federation",
  run: (_, flags) =>
    inTenant(flags)(() =>
      Effect.gen(function*() {
        const partners = yield* PartnersService
        const status = flags["status"]
        if (status !== undefined && !Schema.is(PartnerStatus)(status)) {
          return yield* ValidationFailed.field("status", "must be pending, active, suspended or failed")
        }
        const all = yield* allPages(
          "partners",
          (page) => partners.operator.list({ page, per_page: LIST_PAGE, ...(status === undefined ? {} : { status }) })
        )
        return { json: all.map(partnerJson), text: all.length === 0 ? "no partners" : partnersTable(all) }
      })
    )
}

export const federationPartnersDiagnose: Command<"federation"> = {
  name: "federation partners diagnose",
  summary: "run a partner's connection checks and print what it answered to each (changes nothing)",
  positionals: [idArgument("partner")],
  options: [tenantOption],
  examples: ["federation partners diagnose 3 --tenant demo", "federation partners diagnose 3 --tenant 7 --json"],
  exits: [
    [ExitCode.notFound, "no such tenant, or no such partner in it"],
    [ExitCode.checkFailed, "a check failed (see its detail)"]
  ],
  needs: "federation",
  run: ([id], flags) =>
    inTenant(flags)((tenant) =>
      Effect.gen(function*() {
        const partnerId = yield* idOf(id!, "Partner")
        const diagnosis = yield* Effect.flatMap(PartnersService, (partners) => partners.operator.diagnose(partnerId))
        const failed = diagnosis.checks.filter((c) => !c.ok).length
        return {
          json: Schema.encodeSync(PartnerDiagnosis)(diagnosis),
          text: [
            table(
              ["CHECK", "RESULT", "DETAIL"],
              diagnosis.checks.map((c) => [c.name, c.ok ? "ok" : "FAILED", c.detail])
            ),
            `partner ${partnerId} in ${tenantLabel(tenant)}: ` +
            (diagnosis.ok ? "every check passed" : `${failed} of ${diagnosis.checks.length} checks failed`)
          ].join("\n"),
          exitCode: diagnosis.ok ? ExitCode.ok : ExitCode.checkFailed
        }
      })
    )
}

const deliveryText = (d: WebhookDelivery) =>
  [
    `delivery ${d.id} (${d.event}, webhook ${d.webhook_id}): ${d.status}`,
    `attempts: ${d.attempts}`,
    `last status code: ${d.last_status_code ?? "-"}`,
    `last error: ${d.last_error ?? "-"}`,
    ...(d.status === "retrying" ? [`next attempt: ${DateTime.formatIso(d.next_attempt_at)}`] : []),
    ...(d.delivered_at === null ? [] : [`delivered at: ${DateTime.formatIso(d.delivered_at)}`])
  ].join("\n")

export const federationDeliveriesRetry: Command<"federation"> = {
  name: "federation deliveries retry",
  summary: "send a dead or retrying outbound webhook delivery once now, and show it afterwards",
  positionals: [{ name: "DELIVERY_ID", description: "the delivery's id (the admin webhook deliveries list shows it)" }],
  options: [],
  examples: ["federation deliveries retry 81", "federation deliveries retry 81 --json"],
  exits: [[ExitCode.notFound, "no such delivery"]],
  needs: "federation",
  run: ([id]) =>
    Effect.gen(function*() {
      const deliveryId = yield* idOf(id!, "Delivery")
      const delivery = yield* Effect.flatMap(DeliveriesService, (deliveries) => deliveries.retryDelivery(deliveryId))
      return { json: Schema.encodeSync(WebhookDelivery)(delivery), text: deliveryText(delivery) }
    })
}

/** Every `federation …` command; main.ts lists them after the others. */
export const federationCommands: ReadonlyArray<AnyCommand> = [
  federationKeysCreate,
  federationKeysList,
  federationKeysRevoke,
  federationPartnersList,
  federationPartnersDiagnose,
  federationDeliveriesRetry
]
