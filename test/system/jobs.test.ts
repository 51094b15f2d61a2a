import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { DateTime, Effect, Schedule } from "effect"
import { codeOf, fieldOf } from "../fixtures/bodies.js"
import { type ApiClient, apiClient, asJson, expectError, expectStatus } from "../fixtures/client.js"
import { actor, community, makeActor } from "../fixtures/community.js"
import { tenantHeaders } from "../fixtures/tenants.js"
import { rawRequest } from "../fixtures/TestApp.js"
import { makeSuperAdmin } from "../fixtures/users.js"
import {
  addWork,
  failWith,
  JobsTestApp,
  pendingWork,
  setSlowFor,
  TEST_SLOW,
  TEST_WORK,
  TEST_WORK_SCHEDULE
} from "./testJobs.js"

const CRON = "/api/v2/admin/system/cron-jobs"

/** The run with this id once it is no longer running (a run answered 202 goes on in the background). */
const finishedRun = (client: ApiClient, id: number) =>
  client.adminCronJobs.log({ path: { id } }).pipe(
    Effect.map((res) => res.data),
    Effect.filterOrFail((run) => run.status !== "running"),
    Effect.retry(Schedule.spaced("100 millis").pipe(Schedule.upTo("15 seconds"))),
    Effect.orDie
  )

// Runs asked for over HTTP are awaited one second here (30 in production), so a slow job answers 202.
layer(JobsTestApp({ JOB_RUN_WAIT: "1 second" }), { excludeTestServices: true, timeout: "120 seconds" })(
  "background jobs: runs and logs",
  (it) => {
    it.effect("GET /background-jobs lists every job, sorted, with its schedule, this community's switch and run", () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token" })
        const list = yield* c.admin.client.adminBackgroundJobs.list({ withResponse: true }).pipe(expectStatus(200))
        const ids = list.data.map((job) => job.id)
        assert.includeMembers(ids, [TEST_SLOW, TEST_WORK, "tokens.purge"])
        assert.deepStrictEqual(ids, [...ids].sort())
        assert.deepStrictEqual(list.data.find((job) => job.id === TEST_WORK), {
          id: TEST_WORK,
          description: "Processes the test's pending items",
          schedule: TEST_WORK_SCHEDULE,
          enabled: true,
          last_run: null
        })
        assert.strictEqual(list.data.find((job) => job.id === TEST_SLOW)?.schedule, null)
      }))

    it.effect("a run by hand does the work for the caller's community only and is recorded, even with 0 items", () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token" })
        const d = yield* community({ signIn: "token" })
        yield* addWork(c.tenant.id, 3)
        yield* addWork(d.tenant.id, 2)
        const ran = yield* c.admin.client.adminBackgroundJobs.run({ path: { id: TEST_WORK }, withResponse: true })
          .pipe(expectStatus(200))
        assert.include(asJson(ran.data), {
          job_id: TEST_WORK,
          trigger: "manual",
          status: "succeeded",
          items: 3,
          error: null
        })
        assert.isNotNull(ran.data.finished_at)
        assert.strictEqual(yield* pendingWork(c.tenant.id), 0)
        assert.strictEqual(yield* pendingWork(d.tenant.id), 2, "the other community's work waits")

        // The same through the cron-jobs path, with nothing left to do: recorded all the same.
        const again = yield* c.admin.client.adminCronJobs.run({ path: { id: TEST_WORK }, withResponse: true }).pipe(
          expectStatus(200)
        )
        assert.include(asJson(again.data), { status: "succeeded", items: 0 })

        const logs = yield* c.admin.client.adminCronJobs.logs({ urlParams: { job_id: TEST_WORK } })
        assert.deepStrictEqual(logs.data.map((run) => run.id), [again.data.id, ran.data.id])
        assert.deepStrictEqual(logs.meta, { current_page: 1, per_page: 20, total: 2, total_pages: 1, has_more: false })
        const second = yield* c.admin.client.adminCronJobs.logs({ urlParams: { per_page: 1, page: 2 } })
        assert.deepStrictEqual(second.data.map((run) => run.id), [ran.data.id])
        assert.include(second.meta, { total: 2, total_pages: 2, has_more: false })
        const failed = yield* c.admin.client.adminCronJobs.logs({ urlParams: { status: "failed" } })
        assert.deepStrictEqual(failed.data, [])

        const one = yield* c.admin.client.adminCronJobs.log({ path: { id: ran.data.id }, withResponse: true }).pipe(
          expectStatus(200)
        )
        assert.deepStrictEqual(one.data, ran.data)
        const listed = yield* c.admin.client.adminBackgroundJobs.list()
        assert.deepStrictEqual(listed.data.find((job) => job.id === TEST_WORK)?.last_run, again.data)

        // The other community sees none of it.
        assert.deepStrictEqual((yield* d.admin.client.adminCronJobs.logs({ urlParams: {} })).data, [])
        yield* d.admin.client.adminCronJobs.log({ path: { id: ran.data.id } }).pipe(expectError(404, "NOT_FOUND"))
        const d0 = yield* d.admin.client.adminBackgroundJobs.list()
        assert.isNull(d0.data.find((job) => job.id === TEST_WORK)?.last_run)
      }))

    it.effect("a failure or a defect fails that run only, with its message (at most 1000 characters)", () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token" })
        yield* failWith(c.tenant.id, "fail", "no luck today")
        const failed = yield* c.admin.client.adminBackgroundJobs.run({ path: { id: TEST_WORK } })
        assert.include(asJson(failed.data), { status: "failed", items: 0, error: "no luck today" })
        yield* failWith(c.tenant.id, "die", "x".repeat(3000))
        const died = yield* c.admin.client.adminBackgroundJobs.run({ path: { id: TEST_WORK } })
        assert.strictEqual(died.data.status, "failed")
        assert.strictEqual(died.data.error, "x".repeat(1000))
        assert.isNotNull(died.data.finished_at)
        const logs = yield* c.admin.client.adminCronJobs.logs({ urlParams: { status: "failed", job_id: TEST_WORK } })
        assert.deepStrictEqual(logs.data.map((run) => run.id), [died.data.id, failed.data.id])

        // The server goes on: the next run succeeds.
        yield* failWith(c.tenant.id, "none")
        yield* addWork(c.tenant.id, 1)
        const ok = yield* c.admin.client.adminBackgroundJobs.run({ path: { id: TEST_WORK } })
        assert.include(asJson(ok.data), { status: "succeeded", items: 1 })
      }))

    it.effect("a run past the wait answers 202 running and goes on; asking again answers that same run", () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token" })
        yield* setSlowFor("3 seconds")
        const first = yield* c.admin.client.adminBackgroundJobs.run({ path: { id: TEST_SLOW }, withResponse: true })
          .pipe(expectStatus(202))
        assert.include(asJson(first.data), { job_id: TEST_SLOW, status: "running", finished_at: null, items: 0 })
        const second = yield* c.admin.client.adminCronJobs.run({ path: { id: TEST_SLOW }, withResponse: true }).pipe(
          expectStatus(202)
        )
        assert.strictEqual(second.data.id, first.data.id)
        const running = yield* c.admin.client.adminCronJobs.logs({ urlParams: { status: "running" } })
        assert.deepStrictEqual(running.data.map((run) => run.id), [first.data.id])

        const done = yield* finishedRun(c.admin.client, first.data.id)
        assert.include(asJson(done), { status: "succeeded", items: 1 })
        const runs = yield* c.admin.client.adminCronJobs.logs({ urlParams: { job_id: TEST_SLOW } })
        assert.strictEqual(runs.meta.total, 1)
        yield* setSlowFor("2 seconds")
      }))

    it.effect("DELETE logs removes the community's finished runs (before a time, or all), never a running one", () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token" })
        const d = yield* community({ signIn: "token" })
        const older = yield* c.admin.client.adminBackgroundJobs.run({ path: { id: TEST_WORK } })
        const newer = yield* c.admin.client.adminBackgroundJobs.run({ path: { id: TEST_WORK } })
        const theirs = yield* d.admin.client.adminBackgroundJobs.run({ path: { id: TEST_WORK } })
        yield* setSlowFor("4 seconds")
        const slow = yield* c.admin.client.adminBackgroundJobs.run({ path: { id: TEST_SLOW } })
        assert.strictEqual(slow.data.status, "running")

        const some = yield* c.admin.client.adminCronJobs.deleteLogs({
          urlParams: { before: newer.data.started_at },
          withResponse: true
        }).pipe(expectStatus(200))
        assert.deepStrictEqual(some, { data: { deleted: 1 }, meta: {} })
        yield* c.admin.client.adminCronJobs.log({ path: { id: older.data.id } }).pipe(expectError(404, "NOT_FOUND"))

        const rest = yield* c.admin.client.adminCronJobs.deleteLogs({ urlParams: {} })
        assert.strictEqual(rest.data.deleted, 1)
        const left = yield* c.admin.client.adminCronJobs.logs({ urlParams: {} })
        assert.deepStrictEqual(left.data.map((run) => run.id), [slow.data.id], "the running run stays")
        const others = yield* d.admin.client.adminCronJobs.logs({ urlParams: {} })
        assert.deepStrictEqual(others.data.map((run) => run.id), [theirs.data.id], "other communities keep theirs")
        yield* finishedRun(c.admin.client, slow.data.id)
        yield* setSlowFor("2 seconds")

        // A `before` that is not a date-time is 422 on its field (raw: the typed client sends only DateTimes).
        const bad = yield* rawRequest("DELETE", `${CRON}/logs?before=yesterday`, { headers: c.adminHeaders })
        assert.strictEqual(bad.status, 422)
        assert.strictEqual(fieldOf(bad.body), "before")
      }))

    it.effect("unknown jobs and runs are 404; bad list parameters are 422 on their field", () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token" })
        yield* c.admin.client.adminBackgroundJobs.run({ path: { id: "no.such.job" } }).pipe(
          expectError(404, "NOT_FOUND")
        )
        yield* c.admin.client.adminCronJobs.run({ path: { id: "no.such.job" } }).pipe(expectError(404, "NOT_FOUND"))
        yield* c.admin.client.adminCronJobs.log({ path: { id: 999_999_999 } }).pipe(expectError(404, "NOT_FOUND"))
        // Raw: an id that is not a number is not found (decisions D1); the typed client sends numbers only.
        const abc = yield* rawRequest("GET", `${CRON}/logs/abc`, { headers: c.adminHeaders })
        assert.strictEqual(abc.status, 404)
        assert.strictEqual(codeOf(abc.body), "NOT_FOUND")
        // Raw: a name no job can have (the client refuses to send it) names none either.
        for (const path of [`${CRON}/Not%20A%20Job/run`, `/api/v2/admin/background-jobs/UPPER/run`]) {
          const res = yield* rawRequest("POST", path, { headers: c.adminHeaders })
          assert.strictEqual(res.status, 404, path)
          assert.strictEqual(codeOf(res.body), "NOT_FOUND")
        }
        const badName = yield* rawRequest("GET", `${CRON}/logs?job_id=Bad%20Name`, { headers: c.adminHeaders })
        assert.strictEqual(badName.status, 422)
        assert.strictEqual(fieldOf(badName.body), "job_id")
        for (
          const [query, field] of [["per_page=0", "per_page"], ["per_page=101", "per_page"], ["status=lost", "status"]]
        ) {
          const res = yield* rawRequest("GET", `${CRON}/logs?${query}`, { headers: c.adminHeaders })
          assert.strictEqual(res.status, 422, query)
          assert.strictEqual(codeOf(res.body), "VALIDATION_ERROR")
          assert.strictEqual(fieldOf(res.body), field)
        }
      }))

    it.effect("no token is 401; members, brokers and coordinators are 403 on every route", () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token" })
        yield* addWork(c.tenant.id, 5)
        const run = yield* c.admin.client.adminBackgroundJobs.run({ path: { id: TEST_SLOW } })
        const broker = yield* makeActor(c.tenant, { role: "broker" }, "token")
        const coordinator = yield* makeActor(c.tenant, { role: "coordinator" }, "token")
        const requests: ReadonlyArray<(client: ApiClient) => Effect.Effect<unknown, unknown>> = [
          (client) => client.adminBackgroundJobs.list(),
          (client) => client.adminBackgroundJobs.run({ path: { id: TEST_WORK } }),
          (client) => client.adminCronJobs.run({ path: { id: TEST_WORK } }),
          (client) => client.adminCronJobs.list(),
          (client) => client.adminCronJobs.health(),
          (client) => client.adminCronJobs.logs({ urlParams: {} }),
          (client) => client.adminCronJobs.log({ path: { id: run.data.id } }),
          (client) => client.adminCronJobs.deleteLogs({ urlParams: {} }),
          (client) => client.adminCronJobs.settings(),
          (client) =>
            client.adminCronJobs.updateSettings({ payload: { jobs: [{ job_id: TEST_WORK, enabled: false }] } }),
          (client) => client.adminCronJobs.setting({ path: { jobId: TEST_WORK } }),
          (client) => client.adminCronJobs.updateSetting({ path: { jobId: TEST_WORK }, payload: { enabled: false } })
        ]
        for (const request of requests) {
          yield* request(c.visitor.client).pipe(expectError(401, "AUTH_REQUIRED"))
          for (const who of [c.member, broker, coordinator]) {
            yield* request(who.client).pipe(expectError(403, "FORBIDDEN"))
          }
        }
        assert.strictEqual(yield* pendingWork(c.tenant.id), 5, "no refused run did the work")
        const logs = yield* c.admin.client.adminCronJobs.logs({ urlParams: {} })
        assert.deepStrictEqual(logs.data.map((r) => r.id), [run.data.id], "no refused run and no deletion")
        const setting = yield* c.admin.client.adminCronJobs.setting({ path: { jobId: TEST_WORK } })
        assert.isTrue(setting.data.enabled)
      }))

    it.effect("a platform super-admin naming the community runs jobs for it", () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token" })
        const superAdmin = yield* actor(yield* makeSuperAdmin(), "token")
        const client = yield* apiClient({ ...superAdmin.headers, ...tenantHeaders(c.tenant) })
        yield* addWork(c.tenant.id, 4)
        const ran = yield* client.adminBackgroundJobs.run({ path: { id: TEST_WORK } })
        assert.include(asJson(ran.data), { status: "succeeded", items: 4 })
        const logs = yield* c.admin.client.adminCronJobs.logs({ urlParams: {} })
        assert.deepStrictEqual(logs.data.map((run) => run.id), [ran.data.id])
      }))

    it.effect("the real tokens.purge: a run deletes the community's expired access tokens and is logged", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const c = yield* community({ signIn: "token" })
        const d = yield* community({ signIn: "token" })
        const expire = (userId: number) =>
          sql`UPDATE access_tokens SET expires_at = now() - interval '1 hour'
            WHERE session_id IN (SELECT id FROM auth_sessions WHERE user_id = ${userId})`
        const tokensOf = (userId: number) =>
          Effect.map(
            sql<
              { n: number }
            >`SELECT count(*)::int AS n FROM access_tokens a JOIN auth_sessions s ON s.id = a.session_id
              WHERE s.user_id = ${userId}`,
            (rows) => rows[0]!.n
          )
        yield* expire(c.member.id)
        yield* expire(d.member.id)
        const ran = yield* c.admin.client.adminBackgroundJobs.run({ path: { id: "tokens.purge" } })
        assert.include(asJson(ran.data), { job_id: "tokens.purge", status: "succeeded", error: null })
        assert.isAtLeast(ran.data.items, 1)
        assert.strictEqual(yield* tokensOf(c.member.id), 0)
        assert.strictEqual(yield* tokensOf(c.admin.id), 1, "live tokens stay")
        assert.strictEqual(yield* tokensOf(d.member.id), 1, "another community's expired token waits for its run")
        const logs = yield* c.admin.client.adminCronJobs.logs({ urlParams: { job_id: "tokens.purge" } })
        assert.deepStrictEqual(logs.data, [ran.data])
        const started = DateTime.toEpochMillis(ran.data.started_at)
        assert.isBelow(Math.abs(started - Date.now()), 60_000)
      }))
  }
)
