import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { DateTime, Effect, Schedule } from "effect"
import { type ApiClient, apiClient, asJson } from "../fixtures/client.js"
import { actor, community } from "../fixtures/community.js"
import { tenantHeaders } from "../fixtures/tenants.js"
import { makeSuperAdmin } from "../fixtures/users.js"
import { addWork, failWith, JobsTestApp, pendingWork, TEST_SLOW, TEST_WORK } from "./testJobs.js"

/** Polls `effect` until its value passes `ok` (the scheduler works in the background), for up to 20 seconds. */
const eventually = <A, E, R>(effect: Effect.Effect<A, E, R>, ok: (a: A) => boolean, what: string) =>
  effect.pipe(
    Effect.filterOrFail(ok, () => new Error(`still not: ${what}`)),
    Effect.retry(Schedule.spaced("200 millis").pipe(Schedule.upTo("20 seconds"))),
    Effect.orDie
  )

const runsOf = (client: ApiClient, jobId = TEST_WORK) =>
  Effect.map(client.adminCronJobs.logs({ urlParams: { job_id: jobId } }), (res) => res.data)

const cronJob = (client: ApiClient, id: string) =>
  Effect.map(client.adminCronJobs.list(), (res) => res.data.find((job) => job.id === id))

// The scheduler on, `test.work` every second by the operator's override (its own default is once a year).
const App = JobsTestApp({ JOBS_SCHEDULER: "on", JOB_SCHEDULES: JSON.stringify({ [TEST_WORK]: "* * * * * *" }) })

layer(App, { excludeTestServices: true, timeout: "180 seconds" })("background jobs: the scheduler", (it) => {
  it.effect("a due job runs for every community that did not switch it off; passes without work leave no row", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      const d = yield* community({ signIn: "token" })
      const e = yield* community({ signIn: "token" })
      yield* d.admin.client.adminCronJobs.updateSetting({ path: { jobId: TEST_WORK }, payload: { enabled: false } })
      // A switch counts from the next pass: one that read the switches before it may still be on its way to d.
      yield* Effect.sleep("2 seconds")
      yield* addWork(d.tenant.id, 3)
      yield* addWork(c.tenant.id, 2)

      const [run] = yield* eventually(runsOf(c.admin.client), (runs) => runs.length === 1, "c's work done")
      assert.include(asJson(run), { trigger: "schedule", status: "succeeded", items: 2, error: null })
      assert.strictEqual(yield* pendingWork(c.tenant.id), 0)
      yield* Effect.sleep("2500 millis")
      assert.strictEqual(yield* pendingWork(d.tenant.id), 3, "switched off: skipped")
      assert.deepStrictEqual(yield* runsOf(d.admin.client), [])
      assert.deepStrictEqual(yield* runsOf(e.admin.client), [], "a pass with nothing to do is not recorded")
      assert.deepStrictEqual((yield* runsOf(c.admin.client)).map((r) => r.id), [run!.id])

      const job = yield* cronJob(c.admin.client, TEST_WORK)
      assert.include(asJson(job), { schedule: "* * * * * *", enabled: true, health: "ok" })
      assert.deepStrictEqual(job?.last_run, run)
      // e's passes found nothing to do and recorded no run, yet the list shows when the scheduler last ran it.
      const eJob = yield* cronJob(e.admin.client, TEST_WORK)
      assert.isNull(eJob?.last_run ?? null)
      assert.isBelow(Date.now() - DateTime.toEpochMillis(eJob!.last_pass_at!), 5_000)
      const untilNext = DateTime.toEpochMillis(job!.next_run) - Date.now()
      assert.isBelow(untilNext, 2_000)

      yield* d.admin.client.adminCronJobs.updateSetting({ path: { jobId: TEST_WORK }, payload: { enabled: true } })
      yield* eventually(pendingWork(d.tenant.id), (n) => n === 0, "d's work done once switched on")
      const [dRun] = yield* eventually(runsOf(d.admin.client), (runs) => runs.length === 1, "d's run recorded")
      assert.include(asJson(dRun), { trigger: "schedule", status: "succeeded", items: 3 })
    }))

  it.effect("a community whose run fails fails alone; its health is failing until a pass succeeds again", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const c = yield* community({ signIn: "token" })
      const d = yield* community({ signIn: "token" })
      yield* failWith(c.tenant.id, "fail", "disk full")
      yield* addWork(d.tenant.id, 1)
      yield* eventually(pendingWork(d.tenant.id), (n) => n === 0, "d's work done")
      const failed = yield* eventually(runsOf(c.admin.client), (runs) => runs.length > 0, "c's failure recorded")
      assert.include(asJson(failed[0]), { trigger: "schedule", status: "failed", error: "disk full" })
      assert.strictEqual((yield* cronJob(c.admin.client, TEST_WORK))?.health, "failing")
      // The scheduler's record of the last finished pass says which community failed and why.
      const record = yield* eventually(
        Effect.map(
          sql<{ last_status: string; last_error: string | null }>`
            SELECT last_status, last_error FROM job_schedules WHERE job_id = ${TEST_WORK}`,
          (rows) => rows[0]
        ),
        (row) => row?.last_status === "failed",
        "a failed pass recorded"
      )
      assert.match(
        record!.last_error ?? "",
        new RegExp(`^1 of \\d+ communities failed; tenant ${c.tenant.id}: disk full$`)
      )

      yield* failWith(c.tenant.id, "none")
      yield* eventually(
        Effect.map(cronJob(c.admin.client, TEST_WORK), (job) => job?.health),
        (health) => health === "ok",
        "c's health back to ok after a successful pass"
      )
    }))

  it.effect("a super-admin's schedule is obeyed over the operator's; reset, the operator's applies again", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      const superAdmin = yield* actor(yield* makeSuperAdmin(), "token")
      const client = yield* apiClient({ ...superAdmin.headers, ...tenantHeaders(c.tenant) })
      yield* client.adminCronJobs.updateSetting({ path: { jobId: TEST_WORK }, payload: { schedule: "0 0 1 1 *" } })
      const yearly = yield* cronJob(c.admin.client, TEST_WORK)
      assert.strictEqual(yearly?.schedule, "0 0 1 1 *")
      assert.strictEqual(DateTime.getPartUtc(yearly!.next_run, "month"), 1)
      assert.strictEqual(DateTime.getPartUtc(yearly!.next_run, "day"), 1)

      yield* Effect.sleep("1500 millis")
      yield* addWork(c.tenant.id, 4)
      yield* Effect.sleep("3 seconds")
      assert.strictEqual(yield* pendingWork(c.tenant.id), 4, "not due under the super-admin's schedule")
      assert.deepStrictEqual(yield* runsOf(c.admin.client), [])

      yield* client.adminCronJobs.updateSetting({ path: { jobId: TEST_WORK }, payload: { schedule: null } })
      const back = yield* cronJob(c.admin.client, TEST_WORK)
      assert.strictEqual(back?.schedule, "* * * * * *")
      yield* eventually(pendingWork(c.tenant.id), (n) => n === 0, "work done on the operator's schedule")
    }))

  it.effect("runs a stopped process left running over 15 minutes are marked failed; younger ones stay", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const c = yield* community({ signIn: "token" })
      const d = yield* community({ signIn: "token" })
      const insertRunning = (tenantId: number, minutesAgo: number) =>
        Effect.map(
          sql<{ id: string }>`INSERT INTO job_runs (job_id, tenant_id, trigger, status, started_at)
            VALUES (${TEST_SLOW}, ${tenantId}, 'manual', 'running', now() - make_interval(mins => ${minutesAgo}))
            RETURNING id`,
          (rows) => Number(rows[0]!.id)
        )
      const dead = yield* insertRunning(c.tenant.id, 20)
      const alive = yield* insertRunning(d.tenant.id, 1)
      const failed = yield* eventually(
        Effect.map(c.admin.client.adminCronJobs.log({ path: { id: dead } }), (res) => res.data),
        (run) => run.status === "failed",
        "the abandoned run failed"
      )
      assert.strictEqual(failed.error, "abandoned: the process running it stopped")
      assert.isNotNull(failed.finished_at)
      yield* Effect.sleep("1500 millis")
      const young = yield* d.admin.client.adminCronJobs.log({ path: { id: alive } })
      assert.strictEqual(young.data.status, "running")
      yield* sql`DELETE FROM job_runs WHERE id = ${alive}`
    }))
})
