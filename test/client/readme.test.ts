import { assert, describe, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { join } from "node:path"

const dir = join(import.meta.dirname, "..", "..", "packages", "client")

/** The ```ts blocks of the package's README, in order. */
const readmeBlocks = () =>
  [...readFileSync(join(dir, "README.md"), "utf8").matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!)

/** An example file without its first line (the comment naming it an example of the README). */
const example = (name: string) => readFileSync(join(dir, "examples", name), "utf8").split("\n").slice(1).join("\n")

// The README's code is the examples' code, which `npm run typecheck` compiles against the contract.
describe("packages/client/README.md", () => {
  it("shows exactly the typechecked examples: Effect, then fetch", () => {
    assert.deepStrictEqual(readmeBlocks(), [example("effectClient.ts"), example("fetchClient.ts")])
  })
})
