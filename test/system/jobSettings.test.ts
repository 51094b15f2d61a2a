import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Cron, DateTime, Effect } from "effect"
import { codeOf, fieldOf } from "../fixtures/bodies.js"
import { type ApiClient, apiClient, asJson, expectError, expectStatus } from "../fixtures/client.js"
import { actor, community } from "../fixtures/community.js"
import { tenantHeaders } from "../fixtures/tenants.js"
import { rawRequest } from "../fixtures/TestApp.js"
import { makeSuperAdmin } from "../fixtures/users.js"
import { addWork, failWith, JobsTestApp, TEST_SLOW, TEST_WORK, TEST_WORK_SCHEDULE } from "./testJobs.js"

const CRON = "/api/v2/admin/system/cron-jobs"
const json = (body: unknown) => JSON.stringify(body)

const superAdminOf = (tenant: { readonly id: number }) =>
  Effect.gen(function*() {
    const superAdmin = yield* actor(yield* makeSuperAdmin(), "token")
    return yield* apiClient({ ...superAdmin.headers, ...tenantHeaders(tenant) })
  })

const cronJob = (client: ApiClient, id: string) =>
  Effect.map(client.adminCronJobs.list(), (res) => res.data.find((job) => job.id === id))

/** Where the cron schedule next fires after now, as the API shows it (UTC). */
const nextOf = (schedule: string) => Cron.next(Cron.unsafeParse(schedule, "UTC"), new Date()).toISOString()

/** A job of GET /cron-jobs as JSON, its `next_run` checked to be the schedule's next time when the server answered. */
const cronJobNext = (client: ApiClient, id: string, schedule: string) =>
  Effect.gen(function*() {
    const before = nextOf(schedule)
    const job = asJson(yield* cronJob(client, id)) as { next_run: string; schedule: string }
    assert.include([before, nextOf(schedule)], job.next_run)
    assert.strictEqual(job.schedule, schedule)
    return job
  })

layer(JobsTestApp(), { excludeTestServices: true, timeout: "120 seconds" })(
  "background jobs: settings and health",
  (it) => {
    it.effect("GET /cron-jobs lists the scheduled jobs only, with next run and health; /health sums them up", () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token" })
        const list = yield* c.admin.client.adminCronJobs.list({ withResponse: true }).pipe(expectStatus(200))
        const ids = list.data.map((job) => job.id)
        assert.include(ids, TEST_WORK)
        assert.include(ids, "tokens.purge")
        assert.notInclude(ids, TEST_SLOW, "on demand only")
        const work = yield* cronJobNext(c.admin.client, TEST_WORK, TEST_WORK_SCHEDULE)
        assert.deepStrictEqual(asJson(list.data.find((job) => job.id === TEST_WORK)), {
          id: TEST_WORK,
          schedule: TEST_WORK_SCHEDULE,
          enabled: true,
          last_run: null,
          last_pass_at: null,
          next_run: work.next_run,
          health: "ok"
        })
        const health = yield* c.admin.client.adminCronJobs.health({ withResponse: true }).pipe(expectStatus(200))
        assert.deepStrictEqual(health.data.jobs, list.data.map((job) => ({ id: job.id, health: job.health })))
        assert.deepStrictEqual(
          {
            ok: health.data.ok,
            failing: health.data.failing,
            stale: health.data.stale,
            disabled: health.data.disabled
          },
          { ok: list.data.length, failing: 0, stale: 0, disabled: 0 }
        )
      }))

    it.effect("health: failing after a failed run until a run succeeds; stale when the planned run is overdue", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const c = yield* community({ signIn: "token" })
        const d = yield* community({ signIn: "token" })
        yield* failWith(c.tenant.id, "fail", "mail server away")
        yield* c.admin.client.adminBackgroundJobs.run({ path: { id: TEST_WORK } })
        assert.strictEqual((yield* cronJob(c.admin.client, TEST_WORK))?.health, "failing")
        assert.strictEqual((yield* cronJob(d.admin.client, TEST_WORK))?.health, "ok", "another community's is fine")
        const health = yield* c.admin.client.adminCronJobs.health()
        assert.strictEqual(health.data.failing, 1)
        assert.deepInclude(health.data.jobs, { id: TEST_WORK, health: "failing" })

        yield* failWith(c.tenant.id, "none")
        yield* addWork(c.tenant.id, 1)
        yield* c.admin.client.adminBackgroundJobs.run({ path: { id: TEST_WORK } })
        assert.strictEqual((yield* cronJob(c.admin.client, TEST_WORK))?.health, "ok")

        // The scheduler planned a run long ago and never did it (no runner schedules the job).
        yield* sql`INSERT INTO job_schedules (job_id, next_run_at) VALUES (${TEST_WORK}, '2024-01-01T00:00:00Z')
        ON CONFLICT (job_id) DO UPDATE SET next_run_at = EXCLUDED.next_run_at`
        const stale = yield* cronJob(d.admin.client, TEST_WORK)
        assert.include(asJson(stale), { health: "stale", next_run: "2024-01-01T00:00:00.000Z" })
        yield* sql`UPDATE job_schedules SET next_run_at = NULL WHERE job_id = ${TEST_WORK}`
        assert.strictEqual((yield* cronJob(d.admin.client, TEST_WORK))?.health, "ok")
      }))

    it.effect("a tenant admin switches a job off for the community only; GET settings and the lists show it", () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token" })
        const d = yield* community({ signIn: "token" })
        const all = yield* c.admin.client.adminCronJobs.settings({ withResponse: true }).pipe(expectStatus(200))
        assert.deepInclude(all.data, {
          job_id: TEST_WORK,
          enabled: true,
          schedule: TEST_WORK_SCHEDULE,
          default_schedule: TEST_WORK_SCHEDULE
        })
        assert.deepInclude(all.data, { job_id: TEST_SLOW, enabled: true, schedule: null, default_schedule: null })

        const off = yield* c.admin.client.adminCronJobs.updateSetting({
          path: { jobId: TEST_WORK },
          payload: { enabled: false },
          withResponse: true
        }).pipe(expectStatus(200))
        assert.deepStrictEqual(off.data, {
          job_id: TEST_WORK,
          enabled: false,
          schedule: TEST_WORK_SCHEDULE,
          default_schedule: TEST_WORK_SCHEDULE
        })
        const one = yield* c.admin.client.adminCronJobs.setting({ path: { jobId: TEST_WORK }, withResponse: true })
          .pipe(
            expectStatus(200)
          )
        assert.deepStrictEqual(one.data, off.data)
        assert.strictEqual((yield* cronJob(c.admin.client, TEST_WORK))?.health, "disabled")
        const listed = yield* c.admin.client.adminBackgroundJobs.list()
        assert.isFalse(listed.data.find((job) => job.id === TEST_WORK)?.enabled)
        assert.strictEqual((yield* c.admin.client.adminCronJobs.health()).data.disabled, 1)
        assert.isTrue((yield* d.admin.client.adminCronJobs.setting({ path: { jobId: TEST_WORK } })).data.enabled)

        const many = yield* c.admin.client.adminCronJobs.updateSettings({
          payload: { jobs: [{ job_id: TEST_WORK, enabled: true }, { job_id: "tokens.purge", enabled: false }] },
          withResponse: true
        }).pipe(expectStatus(200))
        assert.deepInclude(many.data, {
          job_id: TEST_WORK,
          enabled: true,
          schedule: TEST_WORK_SCHEDULE,
          default_schedule: TEST_WORK_SCHEDULE
        })
        assert.isFalse(many.data.find((s) => s.job_id === "tokens.purge")?.enabled)
        assert.deepStrictEqual((yield* c.admin.client.adminCronJobs.settings()).data, many.data)
      }))

    it.effect("only platform super-admins change schedules: a tenant admin sending one is 403, nothing changes", () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token" })
        yield* c.admin.client.adminCronJobs.updateSetting({
          path: { jobId: TEST_WORK },
          payload: { enabled: false, schedule: "*/5 * * * *" }
        }).pipe(expectError(403, "FORBIDDEN"))
        yield* c.admin.client.adminCronJobs.updateSetting({ path: { jobId: TEST_WORK }, payload: { schedule: null } })
          .pipe(expectError(403, "FORBIDDEN"))
        yield* c.admin.client.adminCronJobs.updateSettings({
          payload: { jobs: [{ job_id: TEST_SLOW, enabled: false }, { job_id: TEST_WORK, schedule: "* * * * *" }] }
        }).pipe(expectError(403, "FORBIDDEN"))
        const settings = yield* c.admin.client.adminCronJobs.settings()
        assert.deepInclude(settings.data, {
          job_id: TEST_WORK,
          enabled: true,
          schedule: TEST_WORK_SCHEDULE,
          default_schedule: TEST_WORK_SCHEDULE
        })
        assert.isTrue(settings.data.find((s) => s.job_id === TEST_SLOW)?.enabled, "all or nothing")
      }))

    it.effect("a super-admin's schedule is every community's: next_run follows it; null restores the default", () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token" })
        const d = yield* community({ signIn: "token" })
        const superAdmin = yield* superAdminOf(c.tenant)
        const set = yield* superAdmin.adminCronJobs.updateSetting({
          path: { jobId: TEST_WORK },
          payload: { schedule: "*/5 * * * *" },
          withResponse: true
        }).pipe(expectStatus(200))
        assert.deepStrictEqual(set.data, {
          job_id: TEST_WORK,
          enabled: true,
          schedule: "*/5 * * * *",
          default_schedule: TEST_WORK_SCHEDULE
        })
        yield* cronJobNext(d.admin.client, TEST_WORK, "*/5 * * * *")

        // An on-demand job given a schedule becomes a scheduled one, and leaves the list again when reset.
        yield* superAdmin.adminCronJobs.updateSettings({
          payload: { jobs: [{ job_id: TEST_SLOW, schedule: "0 12 * * *" }] }
        })
        yield* cronJobNext(d.admin.client, TEST_SLOW, "0 12 * * *")
        yield* superAdmin.adminCronJobs.updateSettings({
          payload: { jobs: [{ job_id: TEST_SLOW, schedule: null }, { job_id: TEST_WORK, schedule: null }] }
        })
        assert.isUndefined(yield* cronJob(d.admin.client, TEST_SLOW))
        const restored = yield* cronJobNext(d.admin.client, TEST_WORK, TEST_WORK_SCHEDULE)
        assert.strictEqual(DateTime.getPartUtc(DateTime.unsafeMake(restored.next_run), "month"), 1)
      }))

    it.effect("bad settings are 422 on their field; unknown jobs are 404 on the path and 422 in a list", () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token" })
        const superAdmin = yield* superAdminOf(c.tenant)
        yield* c.admin.client.adminCronJobs.setting({ path: { jobId: "no.such.job" } }).pipe(
          expectError(404, "NOT_FOUND")
        )
        yield* c.admin.client.adminCronJobs.updateSetting({
          path: { jobId: "no.such.job" },
          payload: { enabled: false }
        })
          .pipe(expectError(404, "NOT_FOUND"))
        const unknown = yield* c.admin.client.adminCronJobs.updateSettings({
          payload: { jobs: [{ job_id: TEST_WORK, enabled: false }, { job_id: "no.such.job", enabled: false }] }
        }).pipe(expectError(422, "VALIDATION_ERROR"))
        assert.deepStrictEqual(unknown.fields, ["jobs.1.job_id"])
        assert.isTrue((yield* c.admin.client.adminCronJobs.setting({ path: { jobId: TEST_WORK } })).data.enabled)

        // Raw: bodies the typed client refuses to encode (a bad cron, a wrong type, an unknown key).
        const cases: ReadonlyArray<readonly [string, unknown, string]> = [
          [`${CRON}/${TEST_WORK}/settings`, { schedule: "every day" }, "schedule"],
          [`${CRON}/${TEST_WORK}/settings`, { schedule: "* * * *" }, "schedule"],
          [`${CRON}/${TEST_WORK}/settings`, { enabled: "yes" }, "enabled"],
          [`${CRON}/${TEST_WORK}/settings`, { enabled: true, colour: "red" }, "colour"],
          [`${CRON}/settings`, { jobs: [{ job_id: TEST_WORK, schedule: "61 * * * *" }] }, "jobs.0.schedule"],
          [`${CRON}/settings`, { jobs: [{ enabled: true }] }, "jobs.0.job_id"],
          [`${CRON}/settings`, {}, "jobs"]
        ]
        for (const [path, body, field] of cases) {
          const res = yield* rawRequest("PUT", path, { headers: c.adminHeaders, body: json(body) })
          assert.strictEqual(res.status, 422, json(body))
          assert.strictEqual(codeOf(res.body), "VALIDATION_ERROR")
          assert.strictEqual(fieldOf(res.body), field, json(body))
        }
        // Six fields (seconds first) are a schedule too.
        const seconds = yield* superAdmin.adminCronJobs.updateSetting({
          path: { jobId: TEST_WORK },
          payload: { schedule: "30 0 4 * * *" }
        })
        assert.strictEqual(seconds.data.schedule, "30 0 4 * * *")
        yield* cronJobNext(c.admin.client, TEST_WORK, "30 0 4 * * *")
        yield* superAdmin.adminCronJobs.updateSetting({ path: { jobId: TEST_WORK }, payload: { schedule: null } })
      }))
  }
)
