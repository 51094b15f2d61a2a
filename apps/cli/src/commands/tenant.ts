import { type Tenant, TenantDetails, UpdateTenant, ValidationFailed } from "@timebank/domain"
import { decodeInput, requirePlatformAdmin, SuperTenantsService, TenantService } from "@timebank/server"
import { Effect, Record as Rec, Schema } from "effect"
import type { AnyCommand, Command, Flags, OptionSpec } from "../Command.js"
import { ExitCode } from "../ExitCode.js"
import { asPlatformOperator, findTenant } from "../Operator.js"
import { fields, tenantJson, tenantLine, tenantTable } from "../Render.js"

/**
 * `tenant …` (decisions D3): communities. Changes go through the super-admin API's service as the operator, so its
 * rules hold here too (the platform tenant cannot be suspended).
 */

/** `--features` and `--settings` carry JSON; text that does not parse is the operator's mistake, not a crash. */
const parseJsonFlag = (flag: string, value: string | boolean | undefined) =>
  typeof value === "string"
    ? Effect.try({
      try: () => JSON.parse(value) as unknown,
      catch: () => ValidationFailed.field(flag, "is not valid JSON")
    })
    : Effect.succeed(undefined)

/** The service input from the given flags; flags not given are left out, since the schemas refuse `undefined`. */
const inputFrom = (flags: Flags, given: Record<string, unknown>) =>
  Effect.map(
    Effect.all({
      features: parseJsonFlag("features", flags["features"]),
      settings: parseJsonFlag("settings", flags["settings"])
    }),
    (json) => Rec.filter({ ...given, ...json }, (value) => value !== undefined)
  )

const shown = (verb: string) => (tenant: Tenant) => ({
  json: tenantJson(tenant),
  text: `${verb} ${tenantLine(tenant)}`
})

const tenantArgument = { name: "ID|SLUG", description: "the tenant, by id or slug" }

const option = (name: string, value: string, description: string): OptionSpec => ({
  name,
  type: "string",
  value,
  description
})

const jsonOptions: ReadonlyArray<OptionSpec> = [
  option("features", "JSON", "feature switches, {\"<feature>\": true|false} (decisions D3)"),
  option("settings", "JSON", "settings, {\"<setting>\": value} (decisions D3)")
]

const tenantExits = [[ExitCode.notFound, "no tenant has this id or slug"]] as const

export const tenantList: Command<"services"> = {
  name: "tenant list",
  summary: "list every tenant",
  positionals: [],
  options: [],
  examples: ["tenant list", "tenant list --json"],
  needs: "services",
  run: () =>
    Effect.map(Effect.flatMap(TenantService, (tenants) => tenants.list), (list) => ({
      json: list.map(tenantJson),
      text: tenantTable(list)
    }))
}

export const tenantShow: Command<"services"> = {
  name: "tenant show",
  summary: "show one tenant with its features and settings (defaults applied)",
  positionals: [tenantArgument],
  options: [],
  examples: ["tenant show demo", "tenant show 7 --json"],
  exits: tenantExits,
  needs: "services",
  run: ([ref]) =>
    Effect.map(findTenant(ref!), (t) => {
      const details = tenantJson(t)
      const on = (record: Record<string, unknown>) =>
        Object.entries(record).map(([key, value]) => `${key}=${JSON.stringify(value)}`).join(" ")
      return {
        json: details,
        text: fields([
          ["id", String(t.id)],
          ["slug", t.slug],
          ["name", t.name],
          ["status", t.status],
          ["domain", t.domain ?? "-"],
          ["timezone", t.timezone],
          ["created", details.created_at],
          ["features", on(details.features)],
          ["settings", on(details.settings)]
        ])
      }
    })
}

export const tenantCreate: Command<"services"> = {
  name: "tenant create",
  summary: "create a tenant",
  positionals: [],
  options: [
    { ...option("slug", "S", "its slug: lower-case letters, digits and dashes"), required: true },
    { ...option("name", "N", "its name"), required: true },
    option("domain", "D", "a custom domain that selects it"),
    option("timezone", "TZ", "an IANA time zone (default UTC)"),
    ...jsonOptions
  ],
  examples: [
    "tenant create --slug riverside --name \"Riverside Time Bank\" --timezone Europe/London",
    "tenant create --slug hill --name Hill --features '{\"federation\":true}' --json"
  ],
  exits: [[ExitCode.refused, "ALREADY_EXISTS: the slug or the domain is taken"]],
  needs: "services",
  run: (_, flags) =>
    Effect.gen(function*() {
      const { domain, name, slug, timezone } = flags
      const input = yield* inputFrom(flags, { slug, name, domain, timezone })
      return shown("created")(yield* Effect.flatMap(TenantService, (tenants) => tenants.create(input)))
    })
}

/** Applies `input` (the super-admin API's payload) to the tenant `ref` names. */
const change = (ref: string, input: Record<string, unknown>, verb: string) =>
  Effect.gen(function*() {
    const tenant = yield* findTenant(ref)
    const patch = yield* decodeInput(UpdateTenant)(input)
    const updated = yield* Effect.flatMap(SuperTenantsService, (tenants) => tenants.update(tenant.id, patch)).pipe(
      requirePlatformAdmin,
      asPlatformOperator
    )
    return { json: Schema.encodeSync(TenantDetails)(updated), text: `${verb} ${tenantLine(updated)}` }
  })

export const tenantUpdate: Command<"services"> = {
  name: "tenant update",
  summary: "change a tenant's name, domain, status, timezone, features or settings",
  positionals: [tenantArgument],
  options: [
    option("name", "N", "its new name"),
    option("domain", "D", "its new custom domain"),
    { name: "no-domain", type: "boolean", description: "remove its custom domain" },
    option("status", "active|suspended", "its status (see also tenant suspend, tenant activate)"),
    option("timezone", "TZ", "an IANA time zone"),
    ...jsonOptions
  ],
  examples: [
    "tenant update riverside --name \"Riverside\" --no-domain",
    "tenant update 7 --settings '{\"starting_balance\":3}' --json"
  ],
  exits: [...tenantExits, [ExitCode.refused, "ALREADY_EXISTS: the domain is taken"]],
  check: (flags) =>
    flags["domain"] !== undefined && flags["no-domain"] ? "--domain and --no-domain exclude each other" : undefined,
  needs: "services",
  run: ([ref], flags) =>
    Effect.gen(function*() {
      const { name, status, timezone } = flags
      const domain = flags["no-domain"] ? null : flags["domain"]
      return yield* change(ref!, yield* inputFrom(flags, { name, domain, status, timezone }), "updated")
    })
}

const statusCommand = (
  verb: "suspend" | "activate",
  status: Tenant["status"],
  summary: string
): Command<"services"> => ({
  name: `tenant ${verb}`,
  summary,
  positionals: [tenantArgument],
  options: [],
  examples: [`tenant ${verb} riverside`, `tenant ${verb} 7 --json`],
  exits: tenantExits,
  needs: "services",
  run: ([ref]) => change(ref!, { status }, status === "active" ? "activated" : "suspended")
})

export const tenantSuspend = statusCommand(
  "suspend",
  "suspended",
  "suspend a tenant: requests to it are refused (tenant_resolution_failed) until it is activated"
)
export const tenantActivate = statusCommand("activate", "active", "activate a suspended tenant again")

export const tenantCommands: ReadonlyArray<AnyCommand> = [
  tenantList,
  tenantShow,
  tenantCreate,
  tenantUpdate,
  tenantSuspend,
  tenantActivate
]
