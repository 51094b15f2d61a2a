import { runMigrations } from "@timebank/server"
import { Effect } from "effect"
import type { Command } from "../Command.js"

const label = ([id, name]: readonly [number, string]) => `${String(id).padStart(4, "0")}_${name}`

export const migrate: Command<"database"> = {
  name: "migrate",
  summary: "run the migrations that have not run yet",
  synopsis: "",
  positionals: [],
  flags: [],
  needs: "database",
  run: () =>
    Effect.map(runMigrations.pipe(Effect.orDie), (ran) => ({
      json: { migrated: ran.map(([id, name]) => ({ id, name })) },
      text: ran.length === 0 ? "nothing to migrate" : `migrated: ${ran.map(label).join(", ")}`
    }))
}
