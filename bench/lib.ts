// Shared helpers for benchmarks: load generation and latency, the HTTP client, CPU accounting and the report format.
// (The database, the servers and the tenants they measure are set up by bench/setup.ts.)
import autocannon from "autocannon"
import { readdirSync, readFileSync } from "node:fs"
import { Agent, request as httpRequest } from "node:http"
import { performance } from "node:perf_hooks"

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

/** Warms the target up (result discarded), then measures it with the load settings. */
const load = async (label: string, options: autocannon.Options): Promise<Load> => {
  const { connections, duration, warmup } = loadSettings()
  await autocannon({ ...options, connections, duration: warmup })
  const result = await autocannon({ ...options, connections, duration })
  return {
    label,
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts
  }
}

/** Load on one `url`. */
export const measure = (
  label: string,
  url: string,
  options: { readonly headers?: Record<string, string> } = {}
): Promise<Load> => load(label, { url, headers: options.headers ?? {} })

/**
 * Load of GETs on `base`, each connection cycling through `paths`; `perRequest` adds headers to each request as it is
 * sent (e.g. an X-Forwarded-For address of its own).
 */
export const autocannonLoad = (
  label: string,
  base: string,
  headers: Record<string, string>,
  paths: ReadonlyArray<string>,
  options: { readonly perRequest?: () => Record<string, string> } = {}
): Promise<Load> => {
  const { perRequest } = options
  const setupRequest = perRequest &&
    ((request: autocannon.RawRequest) => ({ ...request, headers: { ...request.headers, ...perRequest() } }))
  const requests = paths.map((path) => ({ path, method: "GET", headers, ...(setupRequest ? { setupRequest } : {}) }))
  return load(label, { url: base, headers, requests })
}

/**
 * GET `path` on 127.0.0.1:`port` `count` times one after the other on ONE keep-alive connection (after count / 10
 * unmeasured ones): the latency of a request on its own, without the queueing of a loaded server. req/s is 1 / the
 * mean latency.
 */
export const sequentialLoad = async (
  label: string,
  port: number,
  path: string,
  headers: Record<string, string>,
  count: number
): Promise<Load> => {
  const client = httpClient(port, 1)
  const failures = { non2xx: 0, errors: 0 }
  const once = async () => {
    const answer = await client.send("GET", path, { headers }).catch(() => undefined)
    if (answer === undefined) failures.errors++
    else if (answer.status < 200 || answer.status > 299) failures.non2xx++
  }
  try {
    await runPool(Math.max(1, Math.ceil(count / 10)), 1, once)
    Object.assign(failures, { non2xx: 0, errors: 0 })
    const { latencies, seconds } = await runPool(count, 1, once)
    const twoDecimals = (value: number) => Math.round(value * 100) / 100
    return {
      label,
      rps: Math.round(count / seconds),
      p50: twoDecimals(percentile(latencies, 50)),
      p99: twoDecimals(percentile(latencies, 99)),
      ...failures
    }
  } finally {
    client.close()
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

/** A cursor page as the API answers a list. */
export interface Page<A> {
  readonly data: ReadonlyArray<A>
  readonly meta: { readonly per_page: number; readonly has_more: boolean; readonly cursor?: string }
}

/**
 * Reads the list at `path` page by page, per_page=`perPage` and then each page's cursor (1,000 pages at the most):
 * every item in the order read, the number of pages read and the meta of the last.
 */
export const walkPages = async <A>(get: (path: string) => Promise<Page<A>>, path: string, perPage: number) => {
  const items: Array<A> = []
  let pages = 0
  let last: Page<A>["meta"] | undefined
  for (let next: string | undefined = `${path}?per_page=${perPage}`; next !== undefined && pages < 1_000;) {
    const page = await get(next)
    pages++
    items.push(...page.data)
    last = page.meta
    next = page.meta.cursor === undefined ? undefined : `${path}?per_page=${perPage}&cursor=${page.meta.cursor}`
  }
  return { items, pages, last }
}

/** A timed run of operations (runPool) as the write benchmarks report it: latencies in ms to 0.1, CPU as read. */
export interface TimedRun {
  readonly label: string
  readonly count: number
  readonly seconds: number
  readonly p50: number
  readonly p99: number
  readonly cpu: string
}

export const timedRun = (
  label: string,
  run: { readonly latencies: Float64Array; readonly seconds: number },
  cpu: string
): TimedRun => {
  const oneDecimal = (value: number) => Math.round(value * 10) / 10
  return {
    label,
    count: run.latencies.length,
    seconds: run.seconds,
    p50: oneDecimal(percentile(run.latencies, 50)),
    p99: oneDecimal(percentile(run.latencies, 99)),
    cpu
  }
}

/** Operations a second over a run. */
export const perSecond = (run: TimedRun): number => Math.round(run.count / run.seconds)

/**
 * Counts of a run's outcomes, `kinds` and `other` (anything else); keeps the first few others, which `report` prints
 * as "LABEL: WHAT, e.g." and the samples.
 */
export const tally = <K extends string>(kinds: ReadonlyArray<K>) => {
  const counts = Object.fromEntries([...kinds, "other"].map((kind) => [kind, 0])) as Record<K | "other", number>
  const samples: Array<string> = []
  return {
    counts,
    other: (what: string) => {
      counts.other++
      if (samples.length < 5) samples.push(what)
    },
    report: (label: string, what: string) => {
      if (samples.length > 0) console.log(`${label}: ${what}, e.g.\n  ${samples.join("\n  ")}`)
    }
  }
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

export type Client = ReturnType<typeof httpClient>

/** The answer's JSON when its status is `status`; otherwise throws with what came instead. */
export const expectStatus = (what: string, answer: HttpAnswer, status: number): unknown => {
  if (answer.status !== status) throw new Error(`${what}: expected ${status}, got ${answer.status} ${answer.text}`)
  return JSON.parse(answer.text)
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

/**
 * CPU of the API (when `apiPid` is given), of PostgreSQL (when ours: `databasePid`) and, with `withBench`, of this
 * process, from now until the returned function is called with the seconds that passed: "api 0.93 / pg 0.41" in cores
 * busy ("n/a" when there is nothing to read).
 */
export const cpuMeter = (apiPid: number | undefined, databasePid: number | undefined, withBench = false) => {
  const read = () => {
    const usage = process.cpuUsage()
    return {
      api: cpuSeconds(apiPid),
      pg: cpuSeconds(databasePid, true),
      bench: usage.user / 1e6 + usage.system / 1e6
    }
  }
  const start = read()
  return (seconds: number): string => {
    const end = read()
    const cores = (key: keyof typeof start) => ((end[key] - start[key]) / seconds).toFixed(2)
    return [
      ...(apiPid === undefined ? [] : [`api ${cores("api")}`]),
      ...(databasePid === undefined ? [] : [`pg ${cores("pg")}`]),
      ...(withBench ? [`bench ${cores("bench")}`] : [])
    ].join(" / ") || "n/a"
  }
}

/** Seconds from `since` until `until` (Date.now() values; until now by default), to one decimal. */
export const secondsSince = (since: number, until = Date.now()): number => Math.round((until - since) / 100) / 10

/** Where the benchmark's database is, for its report. */
export const databaseKind = (): string => (process.env.DATABASE_URL ? "DATABASE_URL" : "embedded")
