import { seedDemo as seed } from "@timebank/server"
import { Effect } from "effect"
import type { Command } from "../Command.js"
import { tenantJson, tenantLine } from "../Render.js"

export const seedDemo: Command<"services"> = {
  name: "seed demo",
  summary: "create the demo tenant and its admin unless they exist",
  synopsis: "",
  positionals: [],
  flags: [],
  needs: "services",
  run: () =>
    Effect.map(seed(), ({ admin, created, tenant }) => ({
      json: { ...tenantJson(tenant), admin: { id: admin.id, email: admin.email } },
      text: `${created ? "seeded" : "already there:"} demo ${tenantLine(tenant)}, admin ${admin.email}`
    }))
}
