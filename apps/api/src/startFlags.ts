import { readFileSync } from "node:fs"

/**
 * The node flags `npm start` gives the API process (package.json's `start` script, before `--import`), so that the
 * benches and the tests that start API processes run it as it is deployed. The Dockerfile's CMD says the same
 * (`test/deploy/startCommand.test.ts` holds the two equal).
 */
export const apiStartFlags = (): ReadonlyArray<string> => {
  const manifest = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as {
    readonly scripts?: { readonly start?: string }
  }
  const words = (manifest.scripts?.start ?? "").trim().split(/\s+/)
  const end = words.indexOf("--import")
  if (words[0] !== "node" || end < 0) {
    throw new Error(`package.json's start script is not "node [flags] --import tsx …": ${manifest.scripts?.start}`)
  }
  return words.slice(1, end)
}
