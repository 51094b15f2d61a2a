// GET /api/v2/health on a bare node:http server, on a minimal HttpApi server (one endpoint, no middleware, our
// Effect versions) and on our API, in one run with the same load settings; plus a tenant-resolving route on our
// API, to see what the edge with its tenant step costs. The minimal HttpApi server is the baseline: what the stack
// itself allows. The API runs its own embedded PostgreSQL in a temp DATA_DIR (or uses DATABASE_URL) with the demo
// community seeded.
import autocannon from "autocannon"
import { cpuSeconds, envInt, type Load, loadSettings, measure, printResult, printRows, printTable } from "./lib.js"
import { type Api, type Server, startApi, startBaseline } from "./setup.js"

/** Targets of issue 20: health at 0.9× and the tenant route at 0.7× of the minimal HttpApi server. */
const HEALTH_TARGET = 0.9
const TENANT_TARGET = 0.7

interface Target {
  readonly label: string
  readonly url: string
  readonly headers?: Record<string, string>
  /** The server's process, whose CPU time per request is measured too. */
  readonly pid: number | undefined
}

/** A measured target, with the server's CPU time per request (µs): steadier than req/s on a busy machine. */
interface Measured extends Load {
  readonly cpuMicros: number
}

/**
 * The compared targets measured in BENCH_ROUNDS (3) interleaved rounds that together last BENCH_DURATION, after one
 * warm-up each: on a shared machine, load from elsewhere then falls on every target alike instead of on whichever
 * ran at the time. req/s is the mean of the rounds, p50 the median, p99 the worst.
 */
const interleaved = async (targets: ReadonlyArray<Target>): Promise<Array<Measured>> => {
  const { connections, duration, warmup } = loadSettings()
  const rounds = envInt("BENCH_ROUNDS", 3)
  const each = Math.max(2, Math.ceil(duration / rounds))
  const run = (t: Target, seconds: number) =>
    autocannon({ url: t.url, headers: t.headers ?? {}, connections, duration: seconds })
  for (const t of targets) await run(t, warmup)
  const results = targets.map(() => [] as Array<autocannon.Result>)
  const cpu = targets.map(() => 0)
  for (let round = 0; round < rounds; round++) {
    for (const [i, t] of targets.entries()) {
      const before = cpuSeconds(t.pid)
      results[i]!.push(await run(t, each))
      cpu[i]! += cpuSeconds(t.pid) - before
    }
  }
  return targets.map((t, i) => {
    const rs = results[i]!
    const p50s = rs.map((r) => r.latency.p50).sort((a, b) => a - b)
    return {
      label: t.label,
      rps: Math.round(rs.reduce((sum, r) => sum + r.requests.average, 0) / rs.length),
      p50: p50s[Math.floor(p50s.length / 2)]!,
      p99: Math.max(...rs.map((r) => r.latency.p99)),
      non2xx: rs.reduce((sum, r) => sum + r.non2xx, 0),
      errors: rs.reduce((sum, r) => sum + r.errors + r.timeouts, 0),
      cpuMicros: Math.round((cpu[i]! * 1e6) / Math.max(1, rs.reduce((sum, r) => sum + r.requests.total, 0)))
    }
  })
}

const ratioOf = (ours: Load, baseline: Load) =>
  baseline.rps > 0 ? Math.round((ours.rps / baseline.rps) * 1000) / 1000 : 0

export default async function health(): Promise<void> {
  let bare: Server | undefined
  let minimal: Server | undefined
  let ours: Api | undefined
  try {
    bare = await startBaseline("bench/servers/bareHealth.ts", {}, {
      name: "bare node:http",
      readyPath: "/api/v2/health"
    })
    minimal = await startBaseline("bench/servers/minimalHttpApi.ts", {}, {
      name: "minimal HttpApi",
      readyPath: "/api/v2/health"
    })
    const url = process.env.DATABASE_URL
    ours = await startApi(url ? { url } : undefined, { seedDemo: true })

    const node = await measure("bare node:http   GET /api/v2/health", `${bare.base}/api/v2/health`)
    const compared = await interleaved([
      {
        label: "minimal HttpApi  GET /api/v2/health",
        url: `${minimal.base}/api/v2/health`,
        pid: minimal.child.process.pid
      },
      { label: "timebank API     GET /api/v2/health", url: `${ours.base}/api/v2/health`, pid: ours.child.process.pid },
      {
        label: "timebank API     GET /api/v2/tenant",
        url: `${ours.base}/api/v2/tenant`,
        headers: { "X-Tenant-Slug": "demo" },
        pid: ours.child.process.pid
      }
    ])
    const loads: Array<Load> = [node, ...compared]
    const [baseline, healthLoad, tenant] = compared as [Measured, Measured, Measured]
    printTable(loads)
    console.log("")
    printRows(["server CPU per request", "µs"], compared.map((m) => [m.label, m.cpuMicros]))
    const healthRatio = ratioOf(healthLoad, baseline)
    const tenantRatio = ratioOf(tenant, baseline)
    printResult("health", healthLoad.rps, baseline.rps, {
      all_2xx: loads.every((l) => l.non2xx === 0 && l.errors === 0),
      bare_node_rps: node.rps,
      tenant_route_rps: tenant.rps,
      tenant_route_ratio: tenantRatio,
      cpu_us_per_request: { minimal: baseline.cpuMicros, health: healthLoad.cpuMicros, tenant: tenant.cpuMicros },
      [`health_at_least_${HEALTH_TARGET}`]: healthRatio >= HEALTH_TARGET,
      [`tenant_route_at_least_${TENANT_TARGET}`]: tenantRatio >= TENANT_TARGET
    })
  } finally {
    await Promise.all([bare?.stop(), minimal?.stop(), ours?.stop()])
  }
}
