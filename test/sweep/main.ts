import { summaryText } from "./Report.js"
import { runSweep } from "./Sweep.js"

/**
 * `npm run sweep`: every fuzz case of every operation of a running server's OpenAPI document, and the cross-tenant
 * passes. Prints a table and the counts; exits 1 on any 5xx, envelope violation, missing request id, leak, status
 * the passes forbid, or an operation no pass reached.
 *
 *   SWEEP_BASE_URL                 the server (default http://localhost:3000)
 *   SWEEP_SUPER_ADMIN_EMAIL        a platform super-admin (default BOOTSTRAP_SUPER_ADMIN_EMAIL)
 *   SWEEP_SUPER_ADMIN_PASSWORD     its password (default BOOTSTRAP_SUPER_ADMIN_PASSWORD)
 *   SWEEP_SUPER_ADMIN_TENANT       the tenant it logs in on (default platform)
 *   SWEEP_CASES                    fuzz cases per operation (default: all)
 *   SWEEP_SEED                     seed of the case sample when SWEEP_CASES is set (default sweep)
 *   SWEEP_CONCURRENCY              requests in flight (default 8)
 *   SWEEP_FORWARDED_FOR            "false" to send no random X-Forwarded-For (default true: with TRUST_PROXY=true
 *                                  on the server no rate limit is hit; without it some requests are 429, counted)
 *   SWEEP_TIMEOUT_MS               wait for an answer (default 30000)
 *   SWEEP_FINDINGS                 findings printed in full (default 40)
 */

const env = (name: string) => {
  const value = process.env[name]
  return value === undefined || value === "" ? undefined : value
}

const out = (line: string) => process.stdout.write(`${line}\n`)

const main = async () => {
  const baseUrl = env("SWEEP_BASE_URL") ?? "http://localhost:3000"
  const email = env("SWEEP_SUPER_ADMIN_EMAIL") ?? env("BOOTSTRAP_SUPER_ADMIN_EMAIL")
  const password = env("SWEEP_SUPER_ADMIN_PASSWORD") ?? env("BOOTSTRAP_SUPER_ADMIN_PASSWORD")
  if (email === undefined || password === undefined) {
    process.stderr.write(
      "sweep: set SWEEP_SUPER_ADMIN_EMAIL and SWEEP_SUPER_ADMIN_PASSWORD (or BOOTSTRAP_SUPER_ADMIN_EMAIL and " +
        "BOOTSTRAP_SUPER_ADMIN_PASSWORD, as given to the server)\n"
    )
    return 2
  }
  const cases = env("SWEEP_CASES")
  out(`sweep of ${baseUrl}${cases === undefined ? "" : ` (${cases} fuzz cases per operation)`}`)
  const result = await runSweep({
    baseUrl,
    superAdmin: { email, password, tenantSlug: env("SWEEP_SUPER_ADMIN_TENANT") ?? "platform" },
    ...(cases === undefined ? {} : { casesPerOperation: Number(cases) }),
    seed: env("SWEEP_SEED") ?? "sweep",
    concurrency: Number(env("SWEEP_CONCURRENCY") ?? 8),
    forwardedFor: env("SWEEP_FORWARDED_FOR") !== "false",
    timeoutMs: Number(env("SWEEP_TIMEOUT_MS") ?? 30_000),
    log: (line) => out(line)
  })
  out("")
  out(summaryText(result, { table: true, findings: Number(env("SWEEP_FINDINGS") ?? 40) }))
  const failed = result.recorder.failures > 0 || result.uncovered.length > 0
  out("")
  out(failed ? "sweep: FAILED" : "sweep: passed")
  return failed ? 1 : 0
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`sweep: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`)
    process.exit(2)
  }
)
