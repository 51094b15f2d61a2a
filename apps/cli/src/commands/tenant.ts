import { NotFound, type Tenant, ValidationFailed } from "@timebank/domain"
import { TenantService } from "@timebank/server"
import { Effect, Record as Rec } from "effect"
import type { Command, Flags } from "../Command.js"
import { tenantJson, tenantLine, tenantTable } from "../Render.js"

const jsonFlags = ["features", "settings"] as const

/** `--features` and `--settings` carry JSON; text that does not parse is the operator's mistake, not a crash. */
const parseJsonFlag = (flag: string, value: string | boolean | undefined) =>
  typeof value === "string"
    ? Effect.try({
      try: () => JSON.parse(value) as unknown,
      catch: () => ValidationFailed.field(flag, "is not valid JSON")
    })
    : Effect.succeed(undefined)

/** The service input from the given flags; flags not given are left out, since the schemas refuse `undefined`. */
const inputFrom = (flags: Flags, fields: Record<string, unknown>) =>
  Effect.map(
    Effect.all({
      features: parseJsonFlag("features", flags["features"]),
      settings: parseJsonFlag("settings", flags["settings"])
    }),
    (json) => Rec.filter({ ...fields, ...json }, (value) => value !== undefined)
  )

/** Ids that are not positive integers name no tenant (decisions D1). */
const tenantId = (text: string) =>
  /^[1-9][0-9]*$/.test(text) && Number.isSafeInteger(Number(text))
    ? Effect.succeed(Number(text))
    : Effect.fail(NotFound.of("Tenant"))

const shown = (verb: string) => (tenant: Tenant) => ({
  json: tenantJson(tenant),
  text: `${verb} ${tenantLine(tenant)}`
})

export const tenantCreate: Command<"services"> = {
  name: "tenant create",
  summary: "create a tenant",
  synopsis: "--slug S --name N [--domain D] [--timezone TZ] [--features JSON] [--settings JSON]",
  positionals: [],
  flags: ["slug", "name", "domain", "timezone", ...jsonFlags],
  requiredFlags: ["slug", "name"],
  needs: "services",
  run: (_, flags) =>
    Effect.gen(function*() {
      const tenants = yield* TenantService
      const { domain, name, slug, timezone } = flags
      const input = yield* inputFrom(flags, { slug, name, domain, timezone })
      return shown("created")(yield* tenants.create(input))
    })
}

export const tenantList: Command<"services"> = {
  name: "tenant list",
  summary: "list every tenant",
  synopsis: "",
  positionals: [],
  flags: [],
  needs: "services",
  run: () =>
    Effect.map(Effect.flatMap(TenantService, (tenants) => tenants.list), (list) => ({
      json: list.map(tenantJson),
      text: tenantTable(list)
    }))
}

export const tenantUpdate: Command<"services"> = {
  name: "tenant update",
  summary: "change a tenant's name, domain, status, timezone, features or settings",
  synopsis:
    "ID [--name N] [--domain D | --no-domain] [--status active|suspended]\n[--timezone TZ] [--features JSON] [--settings JSON]",
  positionals: ["ID"],
  flags: ["name", "domain", "no-domain", "status", "timezone", ...jsonFlags],
  needs: "services",
  run: ([id], flags) =>
    Effect.gen(function*() {
      const tenants = yield* TenantService
      const { name, status, timezone } = flags
      const domain = flags["no-domain"] ? null : flags["domain"]
      const patch = yield* inputFrom(flags, { name, domain, status, timezone })
      return shown("updated")(yield* tenants.update(yield* tenantId(id!), patch))
    })
}
