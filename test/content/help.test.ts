import { assert, layer } from "@effect/vitest"
import { type AdminFaqListParams, type CreateFaq, type Faq, FaqId, type PublicFaqParams } from "@timebank/domain"
import { Effect } from "effect"
import { codeOf, dataOf, errorsOf } from "../fixtures/bodies.js"
import { type ApiClient, apiClient, expectError, expectStatus } from "../fixtures/client.js"
import { actor, community, makeActor } from "../fixtures/community.js"
import { rawRequest, TestApp } from "../fixtures/TestApp.js"
import { makeSuperAdmin } from "../fixtures/users.js"

const FAQS = "/api/v2/admin/help/faqs"

const create = (client: ApiClient, payload: CreateFaq) =>
  client.adminHelp.create({ payload, withResponse: true }).pipe(expectStatus(201), Effect.map((r) => r.data))

const adminList = (client: ApiClient, urlParams: AdminFaqListParams = {}) =>
  client.adminHelp.list({ urlParams, withResponse: true }).pipe(expectStatus(200))

const publicPage = (client: ApiClient, urlParams: PublicFaqParams = {}) =>
  client.help.faqs({ urlParams, withResponse: true }).pipe(expectStatus(200))

const questions = (faqs: ReadonlyArray<Faq>) => faqs.map((f) => f.question)

const faq = (question: string, extra: Partial<CreateFaq> = {}): CreateFaq => ({
  question,
  answer: `The answer to ${question}`,
  ...extra
})

layer(TestApp(), { excludeTestServices: true, timeout: "120 seconds" })("help FAQs", (it) => {
  it.effect(
    "new questions go last; the admin list orders by position and filters; the public page shows the " +
      "published ones by category, then position",
    () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token" })
        const admin = c.admin.client
        const join = yield* create(admin, faq("How do I join?", { category: "getting-started" }))
        assert.deepInclude(join, { category: "getting-started", position: 1, is_published: true })
        assert.strictEqual(join.answer, "The answer to How do I join?")
        const earn = yield* create(admin, faq("How do I earn hours?", { category: "getting-started" }))
        assert.strictEqual(earn.position, 2)
        const password = yield* create(admin, faq("I forgot my password", { category: "accounts", position: 0 }))
        const hidden = yield* create(
          admin,
          faq("Draft: closing an account?", { category: "accounts", is_published: false })
        )
        assert.deepInclude(hidden, { position: 3, is_published: false })
        // Without a category: the default one.
        const general = yield* create(admin, faq("What is 50% of an hour_?"))
        assert.deepInclude(general, { category: "general", position: 4 })

        const all = yield* adminList(admin)
        assert.deepStrictEqual(all.data.map((f) => f.id), [password.id, join.id, earn.id, hidden.id, general.id])
        assert.deepStrictEqual(all.meta, { current_page: 1, per_page: 20, total: 5, total_pages: 1, has_more: false })
        const paged = yield* adminList(admin, { per_page: 2, page: 2 })
        assert.deepStrictEqual(paged.data.map((f) => f.id), [earn.id, hidden.id])
        assert.deepStrictEqual(paged.meta, { current_page: 2, per_page: 2, total: 5, total_pages: 3, has_more: true })
        assert.deepStrictEqual(
          (yield* adminList(admin, { category: "accounts" })).data.map((f) => f.id),
          [password.id, hidden.id]
        )
        assert.deepStrictEqual((yield* adminList(admin, { is_published: false })).data.map((f) => f.id), [hidden.id])
        assert.strictEqual((yield* adminList(admin, { is_published: true })).meta.total, 4)
        assert.deepStrictEqual((yield* adminList(admin, { search: "JOIN" })).data.map((f) => f.id), [join.id])
        // The answer is searched too; % and _ match themselves.
        assert.deepStrictEqual((yield* adminList(admin, { search: "answer to i forgot" })).data.map((f) => f.id), [
          password.id
        ])
        assert.deepStrictEqual((yield* adminList(admin, { search: "50%" })).data.map((f) => f.id), [general.id])
        assert.deepStrictEqual((yield* adminList(admin, { search: "hour_" })).data.map((f) => f.id), [general.id])
        assert.deepStrictEqual((yield* adminList(admin, { search: "%" })).data.map((f) => f.id), [general.id])

        // The public page, without a token: published only, by category, then position.
        const page = yield* publicPage(c.visitor.client)
        assert.deepStrictEqual(questions(page.data), [
          "I forgot my password",
          "What is 50% of an hour_?",
          "How do I join?",
          "How do I earn hours?"
        ])
        assert.deepStrictEqual(page.meta, { per_page: 50, has_more: false })
        const first = yield* publicPage(c.visitor.client, { per_page: 3 })
        assert.deepStrictEqual(first.data.map((f) => f.id), [password.id, general.id, join.id])
        assert.isTrue(first.meta.has_more)
        const next = yield* publicPage(c.visitor.client, {
          per_page: 3,
          cursor: [join.category, join.position, join.id]
        })
        assert.deepStrictEqual(next.data.map((f) => f.id), [earn.id])
        // The raw cursor of the first page leads to the same second page.
        const raw = yield* rawRequest("GET", `/api/v2/help/faqs?per_page=3&cursor=${first.meta.cursor!}`, {
          headers: c.anonymous
        })
        assert.strictEqual(raw.status, 200, raw.text)
        assert.deepStrictEqual(dataOf<Array<{ id: number }>>(raw.body).map((f) => f.id), [earn.id])
        const accounts = yield* publicPage(c.member.client, { category: "accounts" })
        assert.deepStrictEqual(accounts.data.map((f) => f.id), [password.id])

        // Another community's help page has none of these.
        const other = yield* community({ signIn: "token" })
        assert.deepStrictEqual((yield* publicPage(other.visitor.client)).data, [])
        assert.strictEqual((yield* adminList(other.admin.client)).meta.total, 0)
      })
  )

  it.effect(
    "update changes the fields given and moves the question; unpublished or deleted ones leave the " +
      "public page",
    () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token" })
        const admin = c.admin.client
        const a = yield* create(admin, faq("First?"))
        const b = yield* create(admin, faq("Second?"))
        const d = yield* create(admin, faq("Third?", { is_published: false }))
        assert.deepStrictEqual(questions((yield* publicPage(c.visitor.client)).data), ["First?", "Second?"])

        const moved = yield* admin.adminHelp.update({ path: { id: a.id }, payload: { position: 10 } })
        assert.deepInclude(moved.data, { id: a.id, question: "First?", position: 10, category: "general" })
        assert.isTrue(moved.data.updated_at.epochMillis >= a.updated_at.epochMillis)
        // Sent raw: the typed client would refuse the untrimmed question that the server trims.
        const edited = yield* rawRequest("PUT", `${FAQS}/${b.id}`, {
          headers: c.adminHeaders,
          body: JSON.stringify({ question: "  Second, edited?  ", answer: "New answer", category: " misc " })
        })
        assert.strictEqual(edited.status, 200, edited.text)
        assert.deepInclude(
          dataOf<{ question: string; answer: string; category: string; position: number }>(edited.body),
          {
            question: "Second, edited?",
            answer: "New answer",
            category: "misc",
            position: b.position
          }
        )
        // Nothing to change: the question as it is.
        const same = yield* admin.adminHelp.update({ path: { id: d.id }, payload: {} })
        assert.deepStrictEqual(same.data, d)

        // Publishing the third makes it appear; unpublishing the first makes it leave.
        yield* admin.adminHelp.update({ path: { id: d.id }, payload: { is_published: true } })
        assert.deepStrictEqual(questions((yield* publicPage(c.visitor.client)).data), [
          "Third?",
          "First?",
          "Second, edited?"
        ])
        yield* admin.adminHelp.update({ path: { id: a.id }, payload: { is_published: false } })
        assert.deepStrictEqual(questions((yield* publicPage(c.visitor.client)).data), ["Third?", "Second, edited?"])
        assert.deepStrictEqual((yield* adminList(admin)).data.map((f) => f.id), [b.id, d.id, a.id])

        const deleted = yield* admin.adminHelp.delete({ path: { id: d.id } })
        assert.deepStrictEqual(deleted.data, { id: d.id, deleted: true })
        assert.deepStrictEqual(questions((yield* publicPage(c.visitor.client)).data), ["Second, edited?"])
        assert.deepStrictEqual((yield* adminList(admin)).data.map((f) => f.id), [b.id, a.id])
        yield* admin.adminHelp.delete({ path: { id: d.id } }).pipe(expectError(404, "NOT_FOUND"))
        yield* admin.adminHelp.update({ path: { id: d.id }, payload: { position: 1 } }).pipe(
          expectError(404, "NOT_FOUND")
        )
        // Ids that cannot be a question's are not found either.
        for (const id of ["0", "-1", "abc", "99999999999"]) {
          const res = yield* rawRequest("DELETE", `${FAQS}/${id}`, { headers: c.adminHeaders })
          assert.strictEqual(res.status, 404, `${id}: ${res.text}`)
        }
      })
  )

  it.effect("lengths count code points; bad bodies are 422 with their field and change nothing", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      // 500 emoji are 500 code points (1000 UTF-16 units): the longest question allowed.
      const longest = yield* create(c.admin.client, faq("😀".repeat(500)))
      assert.strictEqual([...longest.question].length, 500)
      const cases: Array<[unknown, string]> = [
        [{ question: "😀".repeat(501), answer: "a" }, "question"],
        [{ question: "   ", answer: "a" }, "question"],
        [{ answer: "a" }, "question"],
        [{ question: "q", answer: "x".repeat(10_001) }, "answer"],
        [{ question: "q", answer: "" }, "answer"],
        [{ question: "q", answer: "a", category: "" }, "category"],
        [{ question: "q", answer: "a", category: "c".repeat(101) }, "category"],
        [{ question: "q", answer: "a", position: -1 }, "position"],
        [{ question: "q", answer: "a", position: 1.5 }, "position"],
        [{ question: "q", answer: "a", position: 1_000_001 }, "position"],
        [{ question: "q", answer: "a", is_published: "yes" }, "is_published"]
      ]
      for (const [body, field] of cases) {
        const res = yield* rawRequest("POST", FAQS, { headers: c.adminHeaders, body: JSON.stringify(body) })
        assert.strictEqual(res.status, 422, `${JSON.stringify(body).slice(0, 80)}: ${res.text.slice(0, 300)}`)
        assert.strictEqual(codeOf(res.body), "VALIDATION_ERROR")
        assert.include(errorsOf(res.body).map((e) => e.field), field, res.text.slice(0, 300))
      }
      const update = yield* rawRequest("PUT", `${FAQS}/${longest.id}`, {
        headers: c.adminHeaders,
        body: JSON.stringify({ question: "😀".repeat(501) })
      })
      assert.strictEqual(update.status, 422, update.text.slice(0, 300))
      assert.deepStrictEqual(errorsOf(update.body).map((e) => e.field), ["question"])
      const list = yield* adminList(c.admin.client)
      assert.deepStrictEqual(list.data, [longest])
      // A bad filter or cursor on the public page is a 422 too.
      for (const query of ["per_page=0", "per_page=101", "cursor=nope", "category="]) {
        const res = yield* rawRequest("GET", `/api/v2/help/faqs?${query}`, { headers: c.anonymous })
        assert.strictEqual(res.status, 422, `${query}: ${res.text}`)
      }
      const badFilter = yield* rawRequest("GET", `${FAQS}?is_published=yes`, { headers: c.adminHeaders })
      assert.strictEqual(badFilter.status, 422, badFilter.text)
      assert.deepStrictEqual(errorsOf(badFilter.body).map((e) => e.field), ["is_published"])
    }))

  it.effect("no token → 401; member, broker and coordinator → 403; another community's question → 404", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      const mine = yield* create(c.admin.client, faq("Mine?"))
      const anonymous = c.visitor.client
      yield* anonymous.adminHelp.list({ urlParams: {} }).pipe(expectError(401, "AUTH_REQUIRED"))
      yield* anonymous.adminHelp.create({ payload: faq("Q?") }).pipe(expectError(401, "AUTH_REQUIRED"))
      yield* anonymous.adminHelp.update({ path: { id: mine.id }, payload: { position: 5 } }).pipe(
        expectError(401, "AUTH_REQUIRED")
      )
      yield* anonymous.adminHelp.delete({ path: { id: mine.id } }).pipe(expectError(401, "AUTH_REQUIRED"))
      const broker = yield* makeActor(c.tenant, { role: "broker" }, "token")
      const coordinator = yield* makeActor(c.tenant, { role: "coordinator" }, "token")
      for (const who of [c.member, broker, coordinator]) {
        yield* who.client.adminHelp.list({ urlParams: {} }).pipe(expectError(403, "FORBIDDEN"))
        yield* who.client.adminHelp.create({ payload: faq("Q?") }).pipe(expectError(403, "FORBIDDEN"))
        yield* who.client.adminHelp.update({ path: { id: mine.id }, payload: { question: "Taken over?" } }).pipe(
          expectError(403, "FORBIDDEN")
        )
        yield* who.client.adminHelp.delete({ path: { id: mine.id } }).pipe(expectError(403, "FORBIDDEN"))
      }

      // Another community's admin: the question does not exist there.
      const other = yield* community({ signIn: "token" })
      yield* other.admin.client.adminHelp.update({ path: { id: mine.id }, payload: { question: "Taken over?" } })
        .pipe(expectError(404, "NOT_FOUND"))
      yield* other.admin.client.adminHelp.delete({ path: { id: mine.id } }).pipe(expectError(404, "NOT_FOUND"))
      assert.deepStrictEqual((yield* adminList(other.admin.client)).data, [])
      // Its token does not work here.
      const stranger = yield* apiClient({ ...other.adminHeaders, "x-tenant-id": String(c.tenant.id) })
      yield* stranger.adminHelp.delete({ path: { id: mine.id } }).pipe(expectError(401, "AUTH_REQUIRED"))
      // Nothing changed.
      assert.deepStrictEqual((yield* adminList(c.admin.client)).data, [mine])

      // A platform super-admin naming the community manages its questions.
      const superAdmin = yield* actor(yield* makeSuperAdmin(), "token")
      const asSuper = yield* apiClient({ ...superAdmin.headers, "x-tenant-id": String(c.tenant.id) })
      const bySuper = yield* create(asSuper, faq("From the platform?"))
      assert.deepStrictEqual((yield* adminList(c.admin.client)).data.map((f) => f.id), [mine.id, bySuper.id])
      assert.strictEqual(FaqId.make(bySuper.id), bySuper.id)
    }))

  it.effect("with help off the public page is 403 FEATURE_DISABLED; admins still manage the questions", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      yield* create(c.admin.client, faq("Still here?"))
      const off = yield* rawRequest("PUT", "/api/v2/admin/config/features", {
        headers: c.adminHeaders,
        body: JSON.stringify({ help: false })
      })
      assert.strictEqual(off.status, 200, off.text)
      yield* c.visitor.client.help.faqs({ urlParams: {} }).pipe(expectError(403, "FEATURE_DISABLED"))
      yield* c.member.client.help.faqs({ urlParams: {} }).pipe(expectError(403, "FEATURE_DISABLED"))
      yield* create(c.admin.client, faq("Written while off?"))
      assert.strictEqual((yield* adminList(c.admin.client)).meta.total, 2)
      // The blog is a feature of its own.
      yield* c.visitor.client.blog.list({ urlParams: {}, withResponse: true }).pipe(expectStatus(200))

      yield* c.admin.client.adminConfig.setFeature({ payload: { feature: "help", enabled: true } })
      assert.deepStrictEqual(questions((yield* publicPage(c.visitor.client)).data), [
        "Still here?",
        "Written while off?"
      ])
    }))

  it.effect("writes are in the activity log as faq.created, faq.updated and faq.deleted", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      const admin = c.admin.client
      const created = yield* create(admin, faq("Audited?"))
      yield* admin.adminHelp.update({ path: { id: created.id }, payload: { position: 7 } })
      yield* admin.adminHelp.delete({ path: { id: created.id } })
      // A refused write leaves no entry.
      yield* c.member.client.adminHelp.create({ payload: faq("Refused?") }).pipe(expectError(403, "FORBIDDEN"))
      for (const action of ["faq.created", "faq.updated", "faq.deleted"]) {
        const log = yield* admin.adminActivity.log({ urlParams: { action } })
        assert.strictEqual(log.data.length, 1, action)
        assert.deepInclude(log.data[0]!, { action, target_type: "help", target_id: String(created.id) })
        assert.deepStrictEqual(log.data[0]!.actor, { id: c.admin.id, name: "Ada Admin" } as never)
      }
      const raw = yield* rawRequest("GET", "/api/v2/admin/system/activity-log?action=faq.created", {
        headers: c.adminHeaders
      })
      assert.strictEqual(raw.status, 200, raw.text)
      assert.strictEqual(dataOf<Array<{ action: string }>>(raw.body)[0]!.action, "faq.created")
    }))
})
