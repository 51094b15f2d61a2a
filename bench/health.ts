// GET /api/v2/health on a bare node:http server and on our API, in one run with the same load settings;
// plus a tenant-resolving route on our API, to see what the tenant step costs.
import { chmodSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import {
  type Child,
  freePort,
  type Load,
  measure,
  printResult,
  printTable,
  startNode,
  stopChild,
  waitForOk
} from "./lib.js"

const apiEnv = async (port: number): Promise<{ env: Record<string, string>; dataDir?: string }> => {
  const env: Record<string, string> = { PORT: String(port), HOST: "127.0.0.1", LOG_LEVEL: "WARN" }
  if (process.env.REDIS_URL) env.REDIS_URL = process.env.REDIS_URL
  if (process.env.DATABASE_URL) return { env: { ...env, DATABASE_URL: process.env.DATABASE_URL } }
  const dataDir = mkdtempSync(join(tmpdir(), "timebank-bench-"))
  // Embedded PostgreSQL runs as the `postgres` user when we are root; it must be able to enter the directory.
  chmodSync(dataDir, 0o755)
  return { env: { ...env, DATA_DIR: dataDir, EMBEDDED_DB_PORT: String(await freePort()) }, dataDir }
}

export default async function health(): Promise<void> {
  const children: Array<Child> = []
  let dataDir: string | undefined
  try {
    const barePort = await freePort()
    const bare = startNode("bare node:http", ["--import", "tsx", "bench/servers/bareHealth.ts"], {
      PORT: String(barePort)
    })
    children.push(bare)

    const apiPort = await freePort()
    const api = await apiEnv(apiPort)
    dataDir = api.dataDir
    const ours = startNode("timebank API", ["--import", "tsx", "apps/api/src/main.ts"], api.env)
    children.push(ours)

    const bareUrl = `http://127.0.0.1:${barePort}/api/v2/health`
    const oursUrl = `http://127.0.0.1:${apiPort}/api/v2/health`
    await Promise.all([waitForOk(bare, bareUrl), waitForOk(ours, oursUrl)])

    const loads: Array<Load> = [
      await measure("bare node:http  GET /api/v2/health", bareUrl),
      await measure("timebank API    GET /api/v2/health", oursUrl),
      await measure("timebank API    GET /api/v2/tenant", `http://127.0.0.1:${apiPort}/api/v2/tenant`, {
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
    await Promise.all(children.map((child) => stopChild(child)))
    if (dataDir) rmSync(dataDir, { recursive: true, force: true })
  }
}
