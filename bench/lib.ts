// Shared helpers for benchmarks: load generation, child processes, ports and the report format.
import autocannon from "autocannon"
import { type ChildProcess, spawn } from "node:child_process"
import { createServer } from "node:net"
import { dirname } from "node:path"
import { setTimeout as sleep } from "node:timers/promises"
import { fileURLToPath } from "node:url"

/** The repository root; child processes run there so their paths are the same as in `npm start`. */
const root = dirname(dirname(fileURLToPath(import.meta.url)))

const envInt = (name: string, fallback: number): number => {
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

/** Prints loads as an aligned table. */
export const printTable = (loads: ReadonlyArray<Load>): void => {
  const header = ["target", "req/s", "p50 ms", "p99 ms", "non-2xx", "errors"]
  const rows = loads.map((l) => [l.label, l.rps, l.p50, l.p99, l.non2xx, l.errors].map(String))
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
  const line = (cells: ReadonlyArray<string>) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ")
  console.log([line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n"))
}

/** Prints the machine-readable result; it must be the last line of output. */
export const printResult = (
  bench: string,
  ours: number,
  baseline: number,
  checks: Record<string, unknown>
): void => {
  const ratio = baseline > 0 ? Math.round((ours / baseline) * 1000) / 1000 : 0
  console.log(JSON.stringify({ bench, unit: "req/s", ours, baseline, ratio, checks }))
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
