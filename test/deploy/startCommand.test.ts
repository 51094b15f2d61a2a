import { assert, describe, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { apiStartFlags } from "../../apps/api/src/startFlags.js"

const read = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), "utf8")

/** The words of the Dockerfile's exec-form CMD. */
const dockerCmd = (): ReadonlyArray<string> => {
  const line = read("Dockerfile").split("\n").find((l) => l.startsWith("CMD "))
  assert.isDefined(line, "the Dockerfile has a CMD")
  return JSON.parse(line!.slice("CMD ".length)) as ReadonlyArray<string>
}

describe("the API's start command", () => {
  it("is the same in the Dockerfile as in `npm start` (runtime flags included)", () => {
    const start = (JSON.parse(read("package.json")) as { scripts: { start: string } }).scripts.start
    assert.deepStrictEqual(dockerCmd(), start.trim().split(/\s+/))
    assert.include(apiStartFlags(), "--max-semi-space-size=32")
  })
})
