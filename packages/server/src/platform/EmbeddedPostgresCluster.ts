import { Data, Effect } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import {
  accessSync,
  chownSync,
  constants,
  existsSync,
  mkdirSync,
  readdirSync,
  readlinkSync,
  renameSync,
  rmdirSync,
  rmSync,
  symlinkSync,
  writeFileSync
} from "node:fs"
import { platform } from "node:os"
import { dirname, join, resolve } from "node:path"
import {
  type Binaries,
  binariesFor,
  EmbeddedPostgresError,
  installedBinaries,
  isRoot,
  lstatSafe,
  messageOf,
  mkdirReachable,
  type OsUser,
  postgresOsUser,
  reachableBy,
  ROOT_FALLBACK_DIR,
  unavailable
} from "./EmbeddedPostgresBinaries.js"

/** The superuser of every embedded cluster, and its password (the server listens on 127.0.0.1 only). */
export const USER = "postgres"
export const PASSWORD = "postgres"
const READY = "database system is ready to accept connections"

export interface Layout {
  readonly dataDir: string
  /** The directory PostgreSQL keeps its cluster in (DATA_DIR/pg, or the target of that link). */
  readonly clusterDir: string
  /** Set when the cluster does not exist yet and must be linked from DATA_DIR/pg once made (see `prepareLayout`). */
  readonly linkFrom: string | undefined
  readonly binaries: Binaries
  /** The OS user the server runs as; unset when we are not root (it runs as us). */
  readonly user: OsUser | undefined
}

const isEmptyDir = (path: string) => readdirSync(path).length === 0

export const hasCluster = (dir: string) => existsSync(join(dir, "PG_VERSION"))

/** DATA_DIR/pg (`stat` unset when it does not exist) and the cluster it leads to: itself, or its link's target. */
export const clusterOf = (dataDir: string) => {
  const link = join(resolve(dataDir), "pg")
  const stat = lstatSafe(link)
  return { link, stat, clusterDir: stat?.isSymbolicLink() ? resolve(dirname(link), readlinkSync(link)) : link }
}

/**
 * Finds (or plans) the cluster of DATA_DIR. As root the server runs as the OS user `postgres`, which cannot pass
 * through a checkout only its owner may enter (mode 0700): then the binaries are run from a copy and a new
 * cluster is made under ROOT_FALLBACK_DIR and linked from DATA_DIR/pg, so DATA_DIR still leads to it.
 */
export const prepareLayout = (dataDirOption: string): Layout => {
  const binaries = installedBinaries() // fails first when this platform has none
  const dataDir = resolve(dataDirOption)
  try {
    mkdirSync(dataDir, { recursive: true })
    accessSync(dataDir, constants.W_OK)
  } catch (cause) {
    throw unavailable(
      `cannot use DATA_DIR ${dataDir} for the embedded PostgreSQL (${messageOf(cause)}): ` +
        "set DATA_DIR to a writable directory, or DATABASE_URL to a PostgreSQL server"
    )
  }
  const user = isRoot() ? postgresOsUser() : undefined
  const { clusterDir, link, stat } = clusterOf(dataDir)
  const layout = {
    dataDir,
    clusterDir,
    linkFrom: undefined,
    binaries: user === undefined ? binaries : binariesFor(binaries, user),
    user
  }
  if (user === undefined || stat?.isSymbolicLink() || reachableBy(user, dataDir, "directory")) return layout
  if (stat !== undefined && !(stat.isDirectory() && isEmptyDir(link))) {
    throw unavailable(
      `the OS user "postgres" that runs the embedded PostgreSQL cannot reach ${link}: ` +
        "let it pass through the parent directories (chmod o+x), set DATA_DIR elsewhere, " +
        "or set DATABASE_URL to a PostgreSQL server"
    )
  }
  if (stat !== undefined) rmdirSync(link) // an empty directory left by an earlier start that failed
  return { ...layout, clusterDir: join(ROOT_FALLBACK_DIR, `cluster-${randomBytes(6).toString("hex")}`), linkFrom: link }
}

const giveTo = (user: OsUser | undefined, path: string) => {
  if (user !== undefined) chownSync(path, user.uid, user.gid)
}

interface Exited {
  readonly code: number | null
  readonly lines: ReadonlyArray<string>
  readonly spawnError: unknown
}

/** Spawns a binary as the server's OS user; its stderr lines go to `onLine`. */
const run = (layout: Layout, file: string, args: ReadonlyArray<string>, onLine: (line: string) => void) => {
  const child = spawn(file, args, {
    ...(layout.user === undefined ? {} : { uid: layout.user.uid, gid: layout.user.gid }),
    cwd: dirname(layout.clusterDir),
    // Its own process group, so a Ctrl-C in the terminal stops us first and we stop the server last.
    detached: platform() !== "win32",
    stdio: ["ignore", "ignore", "pipe"],
    // Untranslated messages whatever the user's locale: `explain` and `reasonOf` match PostgreSQL's English lines.
    env: { ...process.env, LC_MESSAGES: "C" }
  })
  let partial = ""
  child.stderr?.setEncoding("utf8")
  child.stderr?.on("data", (chunk: string) => {
    const parts = (partial + chunk).split("\n")
    partial = parts.pop() ?? ""
    for (const line of parts) onLine(line)
  })
  child.stderr?.on("end", () => partial !== "" && onLine(partial))
  return child
}

/** Runs a binary to its end, keeping its stderr lines. */
const runToEnd = (layout: Layout, file: string, args: ReadonlyArray<string>) =>
  Effect.async<Exited>((resume) => {
    const lines: Array<string> = []
    const child = run(layout, file, args, (line) => lines.push(line))
    let spawnError: unknown = undefined
    child.on("error", (error) => (spawnError = error))
    child.on("close", (code) => resume(Effect.succeed({ code, lines, spawnError })))
    return Effect.sync(() => child.kill("SIGKILL"))
  })

/** The line of a failed run worth showing: PostgreSQL's FATAL (or initdb's error), else the last one. */
const reasonOf = ({ code, lines, spawnError }: Exited) => {
  if (spawnError !== undefined) return messageOf(spawnError)
  const fatal = lines.map((l) => /(?:FATAL|PANIC|error):\s+(.*)$/.exec(l)?.[1]).find((l) => l !== undefined)
  return fatal ?? lines.filter((l) => l.trim() !== "").at(-1)?.trim() ?? `exit status ${code}`
}

/**
 * Makes a new cluster: initdb into a directory of its own beside the final one, then a rename (or the link from
 * DATA_DIR/pg) publishes it at once, so two processes starting together never share a half-made cluster; the
 * one that loses the race drops its copy and uses the winner's.
 */
export const initialise = (layout: Layout) =>
  Effect.gen(function*() {
    const work = layout.linkFrom === undefined
      ? `${layout.clusterDir}.init-${randomBytes(4).toString("hex")}`
      : layout.clusterDir
    const passwordFile = join(dirname(work), `.pwfile-${randomBytes(4).toString("hex")}`)
    yield* Effect.logInfo(`embedded PostgreSQL: creating a cluster in ${layout.clusterDir}`)
    yield* Effect.try({
      try: () => {
        if (layout.linkFrom === undefined) mkdirSync(dirname(work), { recursive: true })
        else mkdirReachable(dirname(work))
        mkdirSync(work, { mode: 0o700 })
        giveTo(layout.user, work)
        writeFileSync(passwordFile, `${PASSWORD}\n`, { mode: 0o600 })
        giveTo(layout.user, passwordFile)
      },
      catch: (cause) =>
        unavailable(
          `cannot create ${work} for the embedded PostgreSQL (${messageOf(cause)}): ` +
            "set DATA_DIR to a writable directory, or DATABASE_URL to a PostgreSQL server",
          cause
        )
    })
    const exited = yield* runToEnd(layout, layout.binaries.initdb, [
      `--pgdata=${work}`,
      `--username=${USER}`,
      `--pwfile=${passwordFile}`,
      "--auth=scram-sha-256",
      // UTF-8 with code point order and Unicode case mapping, the same on every machine whatever its locales.
      "--encoding=UTF8",
      "--locale=C",
      "--locale-provider=builtin",
      "--builtin-locale=C.UTF-8"
    ]).pipe(Effect.ensuring(Effect.sync(() => rmSync(passwordFile, { force: true }))))
    if (exited.code !== 0) {
      rmSync(work, { recursive: true, force: true })
      return yield* unavailable(
        `initdb could not create a cluster in ${work}: ${reasonOf(exited)}: ` +
          "set DATA_DIR elsewhere, or DATABASE_URL to a PostgreSQL server"
      )
    }
    return yield* Effect.sync(() => publishCluster(layout, work))
  })

/** Publishes the new cluster; returns where the cluster now is (another process's, when it published first). */
const publishCluster = (layout: Layout, work: string): string => {
  try {
    if (layout.linkFrom === undefined) renameSync(work, layout.clusterDir)
    else symlinkSync(layout.clusterDir, layout.linkFrom)
    return layout.clusterDir
  } catch {
    rmSync(work, { recursive: true, force: true })
    return layout.linkFrom === undefined
      ? layout.clusterDir
      : resolve(dirname(layout.linkFrom), readlinkSync(layout.linkFrom))
  }
}

/** Another process runs a server on this cluster (PostgreSQL's own lock, postmaster.pid, says so). */
export class ClusterBusy extends Data.TaggedError("ClusterBusy")<{ readonly message: string }> {}

export interface Running {
  readonly child: ChildProcess
  readonly lines: Array<string>
}

/** Why a start failed, in one line that says what to set instead. */
const explain = (layout: Layout, port: number, exited: Exited) => {
  const text = exited.lines.join("\n")
  if (/lock file "postmaster\.pid" already exists/.test(text)) {
    return new ClusterBusy({
      message: `embedded PostgreSQL in ${layout.clusterDir} is in use by another process (postmaster pid ` +
        `${/\(PID (\d+)\)/.exec(text)?.[1] ?? "?"}) that did not finish: stop it, set DATA_DIR elsewhere, ` +
        "or set DATABASE_URL to a PostgreSQL server"
    })
  }
  if (/Address already in use|could not create any TCP\/IP sockets/.test(text)) {
    return unavailable(
      `embedded PostgreSQL cannot listen on 127.0.0.1:${port}, another program uses that port: ` +
        "set EMBEDDED_DB_PORT to a free port, or DATABASE_URL to a PostgreSQL server"
    )
  }
  return unavailable(
    `embedded PostgreSQL did not start in ${layout.clusterDir}: ${reasonOf(exited)}: ` +
      "set DATABASE_URL to a PostgreSQL server"
  )
}

/** Starts the server and waits until it accepts connections, or says why it did not. */
export const launch = (layout: Layout, port: number) =>
  Effect.async<Running, ClusterBusy | EmbeddedPostgresError>((resume) => {
    const lines: Array<string> = []
    let ready = false
    let spawnError: unknown = undefined
    const child = run(layout, layout.binaries.postgres, [
      "-D",
      layout.clusterDir,
      "-p",
      String(port),
      // Only the loopback address we publish: a port taken there must fail the start, not move to ::1.
      "-c",
      "listen_addresses=127.0.0.1",
      "-c",
      "unix_socket_directories=",
      "-c",
      "max_connections=200",
      "-c",
      "lc_messages=C"
    ], (line) => {
      lines.push(line)
      if (lines.length > 100) lines.shift()
      if (!ready && line.includes(READY)) {
        ready = true
        resume(Effect.succeed({ child, lines }))
      }
    })
    child.on("error", (error) => (spawnError = error))
    child.on("close", (code) => {
      if (!ready) resume(Effect.fail(explain(layout, port, { code, lines, spawnError })))
    })
    return Effect.sync(() => child.kill("SIGINT"))
  })

/** Fast shutdown (SIGINT), then an immediate one if the server has not gone within 30 seconds. */
export const stop = (running: Running) =>
  Effect.async<void>((resume) => {
    const { child } = running
    if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
    const timer = setTimeout(() => child.kill("SIGQUIT"), 30_000)
    child.once("exit", () => {
      clearTimeout(timer)
      resume(Effect.void)
    })
    child.kill("SIGINT")
  })
