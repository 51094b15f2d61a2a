import { TenantService } from "@timebank/server"
import { Effect } from "effect"
import type { Command } from "../Command.js"
import { tenantJson, tenantLine } from "../Render.js"

export const seedDemo: Command<"services"> = {
  name: "seed demo",
  summary: "create the demo tenant unless it exists",
  synopsis: "",
  positionals: [],
  flags: [],
  needs: "services",
  run: () =>
    Effect.map(Effect.flatMap(TenantService, (tenants) => tenants.ensureDemo()), ({ created, tenant }) => ({
      json: tenantJson(tenant),
      text: `${created ? "seeded" : "already there:"} demo ${tenantLine(tenant)}`
    }))
}
