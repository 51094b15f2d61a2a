// Outbound federation webhooks (decisions D13): BENCH_WEBHOOK_EVENTS domain events (default 10,000) of an opted-in
// member appended to the outbox in one statement, fanned out by the API's `federation-webhooks` subscriber to three
// partners of the tenant, and sent by the delivery worker (D13's defaults: 16 in flight per partner, 10 s timeout,
// breaker after 5 failures for 5 minutes). The events are MemberProfileUpdated, which only this pipeline handles, so
// that time and memory are its own; BENCH_WEBHOOK_EVENT=listing makes them ListingCreated, which the notifications
// subscriber handles too (an admin bell each). Two partners answer 204 at once; the third is black-holed (accepts the
// connection, never answers). Measured: from the append until both healthy receivers hold every webhook (each id
// once, every HMAC checked), with the API's RSS sampled every 250 ms. Baseline, in the same run: a bare loop of
// signed `fetch` POSTs (same bodies and headers, 16 in flight per receiver) to the same receivers.
// Checks: 100% at the healthy partners within 60 s, no duplicates, valid signatures, the black-holed partner's
// breaker open (partner `failed`), memory flat: RSS at most 256 MB over its level before the events at the peak, and
// at most 128 MB after an idle window (BENCH_WEBHOOK_IDLE_SECONDS, 10) with the black hole's ~10,000 rows still
// queued — the queue is claimed 64 rows at a time, never loaded whole.
import { createHmac, randomBytes, randomUUID } from "node:crypto"
import { readFileSync } from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { cpus, loadavg } from "node:os"
import { setTimeout as sleep } from "node:timers/promises"
import { signedHeaders } from "../packages/server/src/federation/signing/FederationSignature.js"
import { databaseKind, envInt, expectStatus, printResult, printRows, runPool } from "./lib.js"
import { createTenant, login, type Scene, startScene } from "./setup.js"

const LIMIT_SECONDS = 60
const CONCURRENCY = 16

interface Receiver {
  url: string
  readonly path: string
  readonly seen: Map<string, number>
  badSignatures: number
  readonly credentials: { readonly api_key: string; readonly signing_secret: string }
  readonly close: () => Promise<void>
}

const credentials = () => ({
  api_key: `tbk_${randomBytes(32).toString("hex")}`,
  signing_secret: `tbs_${randomBytes(32).toString("hex")}`
})

const listen = (server: Server) =>
  new Promise<number>((done) => server.listen(0, "127.0.0.1", () => done((server.address() as AddressInfo).port)))

/** A partner's endpoint: checks each request's HMAC as a partner would and counts webhook ids; `hang` never answers. */
const receiver = async (hang: boolean): Promise<Receiver> => {
  const creds = credentials()
  const sockets = { server: undefined as Server | undefined }
  const self: Receiver = {
    url: "",
    path: "/webhooks",
    seen: new Map<string, number>(),
    badSignatures: 0,
    credentials: creds,
    close: () =>
      new Promise<void>((done) => {
        sockets.server?.closeAllConnections()
        sockets.server?.close(() => done())
      })
  }
  const server = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      if (hang) return
      const body = Buffer.concat(chunks).toString("utf8")
      const h = (name: string) => String(req.headers[name] ?? "")
      const canonical = ["POST", req.url, h("x-federation-timestamp"), h("x-federation-nonce"), body].join("\n")
      const expected = createHmac("sha256", creds.signing_secret).update(canonical).digest("hex")
      if (expected !== h("x-federation-signature")) self.badSignatures++
      const id = h("x-federation-webhook-id")
      self.seen.set(id, (self.seen.get(id) ?? 0) + 1)
      res.writeHead(204).end()
    })
  })
  server.keepAliveTimeout = 60_000
  sockets.server = server
  const port = await listen(server)
  return Object.assign(self, { url: `http://127.0.0.1:${port}/webhooks` })
}

/** Resident memory of a process in MB (Linux). */
const rssMb = (pid: number | undefined): number => {
  if (pid === undefined) return Number.NaN
  try {
    const line = readFileSync(`/proc/${pid}/status`, "utf8").split("\n").find((l) => l.startsWith("VmRSS:"))
    return line === undefined ? Number.NaN : Math.round(Number(line.replace(/\D+/g, "")) / 1024)
  } catch {
    return Number.NaN
  }
}

const duplicatesOf = (r: Receiver) => [...r.seen.values()].filter((n) => n > 1).length

/** The bare baseline: signed fetch POSTs of webhook-shaped bodies, `count` per receiver, 16 in flight each. */
const bareLoop = async (receivers: ReadonlyArray<Receiver>, count: number, tenant: { id: number; slug: string }) => {
  const started = performance.now()
  await Promise.all(receivers.map((r) =>
    runPool(count, CONCURRENCY, async (i) => {
      const id = randomUUID()
      const body = JSON.stringify({
        id,
        event: "listing.created",
        tenant,
        occurred_at: new Date().toISOString(),
        data: { id: i, user_id: 1, type: "offer", title: `Bench listing ${i}`, status: "active", category_id: null }
      })
      const response = await fetch(r.url, {
        method: "POST",
        body,
        headers: {
          "content-type": "application/json",
          authorization: `Bearer ${r.credentials.api_key}`,
          "x-federation-webhook-id": id,
          ...signedHeaders({
            secret: r.credentials.signing_secret,
            platformId: r.credentials.api_key.slice(0, 12),
            method: "POST",
            path: r.path,
            body,
            nonce: randomUUID(),
            nowMillis: Date.now()
          })
        }
      })
      await response.arrayBuffer()
      if (response.status !== 204) throw new Error(`baseline answered ${response.status}`)
    })
  ))
  return (performance.now() - started) / 1000
}

export default async function webhooks(): Promise<void> {
  const events = envInt("BENCH_WEBHOOK_EVENTS", 10_000)
  let scene: Scene | undefined
  const receivers: Array<Receiver> = []
  try {
    scene = await startScene({
      api: { env: { TRUST_PROXY: "true" } },
      sockets: 4,
      pool: { max: 4, application_name: "bench-webhooks" }
    })
    const { api, client, pool, superToken } = scene
    const [healthyA, healthyB, blackHoled] = [await receiver(false), await receiver(false), await receiver(true)]
    receivers.push(healthyA, healthyB, blackHoled)

    // ---- set-up, not measured: a tenant with federation on, three active partners, one opted-in member
    const slug = `bench-hooks-${randomBytes(3).toString("hex")}`
    const tenant = await createTenant(client, superToken, slug)
    const { token } = await login(client, tenant.headers, tenant.admin.email, tenant.admin.password, "10.8.0.1")
    const admin = { ...tenant.headers, authorization: `Bearer ${token}`, "x-forwarded-for": "10.8.0.2" }
    await pool.query(`UPDATE federation_platform SET enabled = true`)
    await pool.query(
      `INSERT INTO federation_tenant_settings (tenant_id, whitelisted, toggles) VALUES ($1, true, $2::jsonb)`,
      [tenant.id, JSON.stringify({ listings: true, profiles: true })]
    )
    const partnerIds: Array<number> = []
    for (const [name, r] of [["healthy A", healthyA], ["healthy B", healthyB], ["black hole", blackHoled]] as const) {
      const created = expectStatus(
        `create partner ${name}`,
        await client.send("POST", "/api/v2/admin/federation/partners", {
          headers: admin,
          json: { name, protocol_type: "native", base_url: r.url, webhook_url: r.url, credentials: r.credentials }
        }),
        201
      ) as { data: { id: number } }
      partnerIds.push(created.data.id)
    }
    await pool.query(`UPDATE federation_partners SET status = 'active' WHERE id = ANY($1::bigint[])`, [partnerIds])
    const { rows: [member] } = await pool.query<{ id: string }>(
      `INSERT INTO users (tenant_id, email, first_name, last_name, status, is_approved, federation_opt_in)
       VALUES ($1, $2, 'Bench', 'Member', 'active', true, true) RETURNING id`,
      [tenant.id, `member@${slug}.bench.test`]
    )
    console.log(`set-up: tenant ${slug}, partners ${partnerIds.join(", ")} (database: ${databaseKind()})`)

    // ---- baseline: the same number of signed POSTs per healthy receiver, as a bare fetch loop
    const tenantRef = { id: tenant.id, slug }
    const bareSeconds = await bareLoop([healthyA, healthyB], events, tenantRef)
    const bareOk = [healthyA, healthyB].every((r) => r.seen.size === events && r.badSignatures === 0)
    healthyA.seen.clear()
    healthyB.seen.clear()

    // ---- measured: the outbox → subscriber → deliveries → worker → partners
    const pid = api.child.process.pid
    await sleep(1000)
    const rssBefore = rssMb(pid)
    const samples: Array<number> = [rssBefore]
    const sampler = setInterval(() => samples.push(rssMb(pid)), 250)
    const started = performance.now()
    const listing = process.env.BENCH_WEBHOOK_EVENT === "listing"
    await pool.query(
      listing
        ? `INSERT INTO outbox_events (tenant_id, event_type, payload)
           SELECT $1, 'ListingCreated', jsonb_build_object('listing_id', g, 'user_id', $2::bigint, 'type', 'offer',
                  'title', 'Bench listing ' || g, 'status', 'active', 'category_id', NULL)
           FROM generate_series(1, $3::int) g`
        : `INSERT INTO outbox_events (tenant_id, event_type, payload)
           SELECT $1, 'MemberProfileUpdated', jsonb_build_object('user_id', $2::bigint, 'fields', '["bio"]'::jsonb,
                  'first_name', 'Bench', 'last_name', 'Member', 'avatar_url', NULL, 'bio', 'Edit ' || g,
                  'location', NULL, 'updated_by', $2::bigint)
           FROM generate_series(1, $3::int) g`,
      [tenant.id, member!.id, events]
    )
    let queuedSeconds = Number.NaN
    let firstSeconds = Number.NaN
    while (performance.now() - started < (LIMIT_SECONDS + 30) * 1000) {
      const elapsed = (performance.now() - started) / 1000
      if (Number.isNaN(firstSeconds) && healthyA.seen.size + healthyB.seen.size > 0) firstSeconds = elapsed
      if (Number.isNaN(queuedSeconds)) {
        const { rows: [n] } = await pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM federation_deliveries WHERE tenant_id = $1`,
          [tenant.id]
        )
        if (n!.n >= events * 3) queuedSeconds = elapsed
      }
      if (healthyA.seen.size >= events && healthyB.seen.size >= events) break
      await sleep(50)
    }
    const oursSeconds = (performance.now() - started) / 1000
    const runSamples = samples.length
    // The black-holed partner's rows stay queued (its breaker is open): memory is watched a while longer.
    await sleep(envInt("BENCH_WEBHOOK_IDLE_SECONDS", 10) * 1000)
    clearInterval(sampler)
    samples.push(rssMb(pid))

    const { rows: partners } = await pool.query<{ id: string; status: string; open: boolean; failures: number }>(
      `SELECT id, status, coalesce(breaker_open_until > now(), false) AS open, consecutive_failures AS failures
       FROM federation_partners WHERE id = ANY($1::bigint[]) ORDER BY id`,
      [partnerIds]
    )
    const { rows: counts } = await pool.query<{ partner_id: string; status: string; n: number }>(
      `SELECT partner_id, status, count(*)::int AS n FROM federation_deliveries WHERE tenant_id = $1
       GROUP BY 1, 2 ORDER BY 1, 2`,
      [tenant.id]
    )
    const { rows: [attempts] } = await pool.query<{ n: number; timeouts: number }>(
      `SELECT count(*)::int AS n, count(*) FILTER (WHERE a.error LIKE 'timeout%')::int AS timeouts
       FROM federation_delivery_attempts a JOIN federation_deliveries d ON d.id = a.delivery_id
       WHERE d.partner_id = $1`,
      [partnerIds[2]]
    )
    const hole = partners.find((p) => Number(p.id) === partnerIds[2])!
    const healthy = [healthyA, healthyB]
    const allDelivered = healthy.every((r) => r.seen.size === events)
    const duplicates = healthy.reduce((n, r) => n + duplicatesOf(r), 0)
    const badSignatures = healthy.reduce((n, r) => n + r.badSignatures, 0)
    const maxOf = (xs: ReadonlyArray<number>) => Math.max(...xs.filter((x) => !Number.isNaN(x)))
    const rssMax = maxOf(samples)
    const half = Math.max(2, Math.floor(runSamples / 2))
    const rssFirstHalf = maxOf(samples.slice(0, half))
    const rssSecondHalf = maxOf(samples.slice(half, runSamples))
    const rssIdle = maxOf(samples.slice(runSamples))
    const rssAfter = samples.at(-1)!
    // Flat: bounded while 30,000 rows go through, and back near where it started while ~10,000 stay queued.
    const memoryFlat = rssMax - rssBefore <= 256 && rssIdle - rssBefore <= 128
    const total = events * 2
    const oursRate = allDelivered ? Math.round(total / oursSeconds) : 0
    const bareRate = Math.round(total / bareSeconds)

    console.log(
      `\n${events} events → 3 partners (2 healthy, 1 black-holed); ${total} webhooks to the healthy ones; ` +
        `rows written ${queuedSeconds.toFixed(1)} s, first webhook ${firstSeconds.toFixed(2)} s after the append; ` +
        `load average ${loadavg().map((l) => l.toFixed(1)).join(" ")} on ${cpus().length} CPUs`
    )
    printRows(["target", "webhooks", "seconds", "req/s", "duplicates", "bad signatures"], [
      [
        "timebank outbox → partners",
        healthy.reduce((n, r) => n + r.seen.size, 0),
        oursSeconds.toFixed(1),
        oursRate,
        duplicates,
        badSignatures
      ],
      ["bare signed fetch loop", total, bareSeconds.toFixed(1), bareRate, 0, bareOk ? 0 : "?"]
    ])
    printRows(
      ["partner", "status", "breaker", "consecutive failures", "deliveries"],
      partners.map((p) => [
        p.id,
        p.status,
        p.open ? "open" : "closed",
        p.failures,
        counts.filter((c) => c.partner_id === p.id).map((c) => `${c.status} ${c.n}`).join(", ")
      ])
    )
    printRows(["API memory (RSS)", "MB"], [
      ["before the events", rssBefore],
      ["max, first half of the run", rssFirstHalf],
      ["max, second half of the run", rssSecondHalf],
      ["max, idle with the black hole's rows queued", rssIdle],
      ["at the end", rssAfter]
    ])

    printResult("webhooks", oursRate, bareRate, {
      healthy_all_delivered: allDelivered,
      within_60s: allDelivered && oursSeconds <= LIMIT_SECONDS,
      seconds: Math.round(oursSeconds * 10) / 10,
      rows_written_seconds: Math.round(queuedSeconds * 10) / 10,
      no_duplicates: duplicates === 0,
      signatures_valid: badSignatures === 0,
      breaker_open_black_hole: hole.open,
      black_hole_partner_failed: hole.status === "failed",
      black_hole_attempts: attempts!.n,
      black_hole_timeouts: attempts!.timeouts,
      rss_mb_before: rssBefore,
      rss_mb_max: rssMax,
      rss_mb_first_half: rssFirstHalf,
      rss_mb_second_half: rssSecondHalf,
      rss_mb_idle: rssIdle,
      memory_flat: memoryFlat,
      baseline_ok: bareOk,
      events
    })
  } finally {
    await Promise.all(receivers.map((r) => r.close()))
    await scene?.close()
  }
}
