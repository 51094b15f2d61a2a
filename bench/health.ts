// GET /api/v2/health on a bare node:http server and on our API, in one run with the same load settings;
// plus a tenant-resolving route on our API, to see what the tenant step costs. The API runs its own embedded
// PostgreSQL in a temp DATA_DIR (or uses DATABASE_URL) with the demo community seeded.
import { type Load, measure, printResult, printTable } from "./lib.js"
import { type Api, type Server, startApi, startBaseline } from "./setup.js"

export default async function health(): Promise<void> {
  let bare: Server | undefined
  let ours: Api | undefined
  try {
    bare = await startBaseline("bench/servers/bareHealth.ts", {}, {
      name: "bare node:http",
      readyPath: "/api/v2/health"
    })
    const url = process.env.DATABASE_URL
    ours = await startApi(url ? { url } : undefined, { seedDemo: true })

    const loads: Array<Load> = [
      await measure("bare node:http  GET /api/v2/health", `${bare.base}/api/v2/health`),
      await measure("timebank API    GET /api/v2/health", `${ours.base}/api/v2/health`),
      await measure("timebank API    GET /api/v2/tenant", `${ours.base}/api/v2/tenant`, {
        headers: { "X-Tenant-Slug": "demo" }
      })
    ]
    const [baseline, health, tenant] = loads as [Load, Load, Load]
    printTable(loads)
    printResult("health", health.rps, baseline.rps, {
      all_2xx: loads.every((l) => l.non2xx === 0 && l.errors === 0),
      tenant_route_rps: tenant.rps
    })
  } finally {
    await Promise.all([bare?.stop(), ours?.stop()])
  }
}
