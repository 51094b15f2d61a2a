import { assert, layer } from "@effect/vitest"
import {
  type AdminBlogListParams,
  type BlogPost,
  type BlogPostId,
  type CreateBlogPost,
  type PublicBlogParams,
  UserId
} from "@timebank/domain"
import { Effect } from "effect"
import { codeOf, dataOf, errorsOf } from "../fixtures/bodies.js"
import { type ApiClient, apiClient, expectError, expectStatus } from "../fixtures/client.js"
import { actor, community, makeActor } from "../fixtures/community.js"
import { rawRequest, TestApp } from "../fixtures/TestApp.js"
import { makeSuperAdmin } from "../fixtures/users.js"

const BLOG = "/api/v2/admin/blog"

const create = (client: ApiClient, payload: CreateBlogPost) =>
  client.adminBlog.create({ payload, withResponse: true }).pipe(expectStatus(201), Effect.map((r) => r.data))

const adminList = (client: ApiClient, urlParams: AdminBlogListParams = {}) =>
  client.adminBlog.list({ urlParams, withResponse: true }).pipe(expectStatus(200))

const publicList = (client: ApiClient, urlParams: PublicBlogParams = {}) =>
  client.blog.list({ urlParams, withResponse: true }).pipe(expectStatus(200))

const publicGet = (client: ApiClient, slug: string) =>
  client.blog.get({ path: { slug }, withResponse: true }).pipe(expectStatus(200))

const titles = (posts: ReadonlyArray<BlogPost>) => posts.map((p) => p.title)

const post = (title: string, extra: Partial<CreateBlogPost> = {}): CreateBlogPost => ({
  title,
  content: `The text of ${title}`,
  ...extra
})

layer(TestApp(), { excludeTestServices: true, timeout: "120 seconds" })("blog", (it) => {
  it.effect("a draft is unseen until toggled to published; toggled back it is gone again", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      const admin = c.admin.client
      // Sent raw: the typed client would refuse the untrimmed excerpt that the server trims.
      const raw = yield* rawRequest("POST", BLOG, {
        headers: c.adminHeaders,
        body: JSON.stringify(post("Hello, World!", { excerpt: "  A first word  " }))
      })
      assert.strictEqual(raw.status, 201, raw.text)
      const draft = (yield* admin.adminBlog.get({ path: { id: dataOf<{ id: BlogPostId }>(raw.body).id } })).data
      assert.deepInclude(draft, {
        title: "Hello, World!",
        slug: "hello-world",
        excerpt: "A first word",
        content: "The text of Hello, World!",
        status: "draft",
        published_at: null,
        author_id: UserId.make(c.admin.id)
      })
      assert.deepStrictEqual(draft.author, { id: c.admin.id, name: "Ada Admin" } as never)
      assert.deepStrictEqual((yield* publicList(c.visitor.client)).data, [])
      yield* c.visitor.client.blog.get({ path: { slug: "hello-world" } }).pipe(expectError(404, "NOT_FOUND"))

      const published = yield* admin.adminBlog.toggleStatus({ path: { id: draft.id } })
      assert.strictEqual(published.data.status, "published")
      assert.isNotNull(published.data.published_at)
      const list = yield* publicList(c.visitor.client)
      assert.deepStrictEqual(list.data, [published.data])
      assert.deepStrictEqual(list.meta, { per_page: 20, has_more: false })
      assert.deepStrictEqual((yield* publicGet(c.visitor.client, "hello-world")).data, published.data)
      assert.deepStrictEqual((yield* admin.adminBlog.get({ path: { id: draft.id } })).data, published.data)

      const back = yield* admin.adminBlog.toggleStatus({ path: { id: draft.id } })
      assert.deepInclude(back.data, { status: "draft", published_at: null })
      assert.deepStrictEqual((yield* publicList(c.visitor.client)).data, [])
      yield* c.member.client.blog.get({ path: { slug: "hello-world" } }).pipe(expectError(404, "NOT_FOUND"))
      // The admin still has it.
      assert.deepStrictEqual((yield* admin.adminBlog.get({ path: { id: draft.id } })).data, back.data)
    }))

  it.effect(
    "slugs come from the title, unique in the community; a given one is checked; it stays when the title " +
      "changes",
    () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token" })
        const admin = c.admin.client
        const first = yield* create(admin, post("Café & Bäckerei"))
        const second = yield* create(admin, post("Café & Bäckerei"))
        const third = yield* create(admin, post("café / bäckerei!"))
        assert.deepStrictEqual([first.slug, second.slug, third.slug], [
          "cafe-backerei",
          "cafe-backerei-2",
          "cafe-backerei-3"
        ])
        // Nothing to make a slug of.
        assert.strictEqual((yield* create(admin, post("¿¡!?"))).slug, "post")
        const given = yield* create(admin, post("Whatever", { slug: "my-own-address" }))
        assert.strictEqual(given.slug, "my-own-address")
        const taken = yield* admin.adminBlog.create({ payload: post("Other", { slug: "cafe-backerei" }) }).pipe(
          expectError(409, "ALREADY_EXISTS")
        )
        assert.deepStrictEqual(taken.fields, ["slug"])

        // Another community may use the same slugs.
        const other = yield* community({ signIn: "token" })
        assert.strictEqual((yield* create(other.admin.client, post("Café & Bäckerei"))).slug, "cafe-backerei")

        // A new title keeps the slug; a new slug is checked against the others (its own is fine).
        const retitled = yield* admin.adminBlog.update({ path: { id: first.id }, payload: { title: "Renamed" } })
        assert.deepInclude(retitled.data, { title: "Renamed", slug: "cafe-backerei" })
        const clash = yield* admin.adminBlog.update({ path: { id: first.id }, payload: { slug: "my-own-address" } })
          .pipe(expectError(409, "ALREADY_EXISTS"))
        assert.deepStrictEqual(clash.fields, ["slug"])
        const same = yield* admin.adminBlog.update({ path: { id: first.id }, payload: { slug: "cafe-backerei" } })
        assert.strictEqual(same.data.slug, "cafe-backerei")
        yield* admin.adminBlog.update({ path: { id: first.id }, payload: { status: "published" } })
        yield* publicGet(c.visitor.client, "cafe-backerei")
        const moved = yield* admin.adminBlog.update({ path: { id: first.id }, payload: { slug: "new-address" } })
        assert.strictEqual(moved.data.slug, "new-address")
        assert.strictEqual((yield* publicGet(c.visitor.client, "new-address")).data.id, first.id)
        yield* c.visitor.client.blog.get({ path: { slug: "cafe-backerei" } }).pipe(expectError(404, "NOT_FOUND"))
        // The freed slug can be taken by a new post.
        assert.strictEqual((yield* create(admin, post("Café & Bäckerei"))).slug, "cafe-backerei")
      })
  )

  it.effect(
    "the public blog lists published posts, latest published first, in cursor pages; update and delete " +
      "show there",
    () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token" })
        const admin = c.admin.client
        const a = yield* create(admin, post("Post A", { status: "published" }))
        assert.strictEqual(a.status, "published")
        assert.isNotNull(a.published_at)
        const b = yield* create(admin, post("Post B", { status: "published" }))
        const draft = yield* create(admin, post("Draft C"))
        const d = yield* create(admin, post("Post D", { status: "published" }))
        assert.deepStrictEqual(titles((yield* publicList(c.visitor.client)).data), ["Post D", "Post B", "Post A"])

        const first = yield* publicList(c.visitor.client, { per_page: 2 })
        assert.deepStrictEqual(titles(first.data), ["Post D", "Post B"])
        assert.isTrue(first.meta.has_more)
        const raw = yield* rawRequest("GET", `/api/v2/blog?per_page=2&cursor=${first.meta.cursor!}`, {
          headers: c.anonymous
        })
        assert.strictEqual(raw.status, 200, raw.text)
        assert.deepStrictEqual(dataOf<Array<{ title: string }>>(raw.body).map((p) => p.title), ["Post A"])

        // Publishing the draft now puts it first; an older post published again comes first too.
        yield* admin.adminBlog.toggleStatus({ path: { id: draft.id } })
        assert.deepStrictEqual(titles((yield* publicList(c.visitor.client)).data), [
          "Draft C",
          "Post D",
          "Post B",
          "Post A"
        ])
        yield* admin.adminBlog.update({ path: { id: a.id }, payload: { status: "draft" } })
        assert.deepStrictEqual(titles((yield* publicList(c.visitor.client)).data), ["Draft C", "Post D", "Post B"])
        yield* admin.adminBlog.toggleStatus({ path: { id: a.id } })
        assert.deepStrictEqual(titles((yield* publicList(c.visitor.client)).data), [
          "Post A",
          "Draft C",
          "Post D",
          "Post B"
        ])
        // An edit of a published post keeps its publication time.
        const before = (yield* admin.adminBlog.get({ path: { id: b.id } })).data
        const edited = yield* admin.adminBlog.update({
          path: { id: b.id },
          payload: { content: "New text", excerpt: "", status: "published" }
        })
        assert.deepInclude(edited.data, { content: "New text", excerpt: null, status: "published" })
        assert.deepStrictEqual(edited.data.published_at, before.published_at)
        assert.strictEqual((yield* publicGet(c.visitor.client, b.slug)).data.content, "New text")

        const deleted = yield* admin.adminBlog.delete({ path: { id: d.id } })
        assert.deepStrictEqual(deleted.data, { id: d.id, deleted: true })
        assert.deepStrictEqual(titles((yield* publicList(c.visitor.client)).data), ["Post A", "Draft C", "Post B"])
        yield* c.visitor.client.blog.get({ path: { slug: d.slug } }).pipe(expectError(404, "NOT_FOUND"))
        yield* admin.adminBlog.get({ path: { id: d.id } }).pipe(expectError(404, "NOT_FOUND"))
        yield* admin.adminBlog.delete({ path: { id: d.id } }).pipe(expectError(404, "NOT_FOUND"))
        yield* admin.adminBlog.toggleStatus({ path: { id: d.id } }).pipe(expectError(404, "NOT_FOUND"))
        yield* admin.adminBlog.update({ path: { id: d.id }, payload: { title: "Back?" } }).pipe(
          expectError(404, "NOT_FOUND")
        )
      })
  )

  it.effect("the admin list shows drafts and published posts, newest first, filtered by status and search", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      const admin = c.admin.client
      const garden = yield* create(admin, post("Garden day", { status: "published", excerpt: "Bring 100% energy" }))
      const repair = yield* create(admin, post("Repair café"))
      const swap = yield* create(admin, post("Clothes swap", { content: "Bring your garden_tools" }))
      const all = yield* adminList(admin)
      assert.deepStrictEqual(all.data.map((p) => p.id), [swap.id, repair.id, garden.id])
      assert.deepStrictEqual(all.meta, { current_page: 1, per_page: 20, total: 3, total_pages: 1, has_more: false })
      assert.deepStrictEqual((yield* adminList(admin, { status: "draft" })).data.map((p) => p.id), [
        swap.id,
        repair.id
      ])
      assert.deepStrictEqual((yield* adminList(admin, { status: "published" })).data.map((p) => p.id), [garden.id])
      assert.deepStrictEqual((yield* adminList(admin, { search: "GARDEN" })).data.map((p) => p.id), [
        swap.id,
        garden.id
      ])
      assert.deepStrictEqual((yield* adminList(admin, { search: "100%" })).data.map((p) => p.id), [garden.id])
      // `_` matches itself: "t_x" is not "tex".
      assert.deepStrictEqual((yield* adminList(admin, { search: "t_x" })).data.map((p) => p.id), [])
      assert.deepStrictEqual((yield* adminList(admin, { search: "n_t" })).data.map((p) => p.id), [swap.id])
      const paged = yield* adminList(admin, { per_page: 1, page: 2 })
      assert.deepStrictEqual(paged.data.map((p) => p.id), [repair.id])
      assert.deepStrictEqual(paged.meta, { current_page: 2, per_page: 1, total: 3, total_pages: 3, has_more: true })
    }))

  it.effect("bad bodies are 422 with their field; a slug that cannot be one is 404 on the public blog", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      const existing = yield* create(c.admin.client, post("Existing"))
      const cases: Array<[unknown, string]> = [
        [{ title: "", content: "x" }, "title"],
        [{ title: "   ", content: "x" }, "title"],
        [{ content: "x" }, "title"],
        [{ title: "t".repeat(201), content: "x" }, "title"],
        [{ title: "T", content: "" }, "content"],
        [{ title: "T", content: "x", slug: "Bad Slug" }, "slug"],
        [{ title: "T", content: "x", slug: "-leading" }, "slug"],
        [{ title: "T", content: "x", slug: "double--hyphen" }, "slug"],
        [{ title: "T", content: "x", slug: "" }, "slug"],
        [{ title: "T", content: "x", slug: "a".repeat(101) }, "slug"],
        [{ title: "T", content: "x", excerpt: "e".repeat(501) }, "excerpt"],
        [{ title: "T", content: "x", status: "archived" }, "status"]
      ]
      for (const [body, field] of cases) {
        const res = yield* rawRequest("POST", BLOG, { headers: c.adminHeaders, body: JSON.stringify(body) })
        assert.strictEqual(res.status, 422, `${JSON.stringify(body).slice(0, 80)}: ${res.text.slice(0, 300)}`)
        assert.strictEqual(codeOf(res.body), "VALIDATION_ERROR")
        assert.include(errorsOf(res.body).map((e) => e.field), field, res.text.slice(0, 300))
      }
      for (const body of [{ title: "" }, { slug: "UPPER" }, { content: "" }, { status: "gone" }]) {
        const res = yield* rawRequest("PUT", `${BLOG}/${existing.id}`, {
          headers: c.adminHeaders,
          body: JSON.stringify(body)
        })
        assert.strictEqual(res.status, 422, `${JSON.stringify(body)}: ${res.text}`)
        assert.deepStrictEqual(errorsOf(res.body).map((e) => e.field), Object.keys(body))
      }
      assert.deepStrictEqual((yield* adminList(c.admin.client)).data, [existing])
      for (const slug of ["Bad_Slug", "a--b", "%C3%A9", "x".repeat(300)]) {
        const res = yield* rawRequest("GET", `/api/v2/blog/${slug}`, { headers: c.anonymous })
        assert.strictEqual(res.status, 404, `${slug}: ${res.text}`)
        assert.strictEqual(codeOf(res.body), "NOT_FOUND")
      }
      for (const query of ["per_page=0", "per_page=51", "cursor=nope"]) {
        const res = yield* rawRequest("GET", `/api/v2/blog?${query}`, { headers: c.anonymous })
        assert.strictEqual(res.status, 422, `${query}: ${res.text}`)
      }
    }))

  it.effect("no token → 401; member, broker and coordinator → 403; another community's post → 404", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      const mine = yield* create(c.admin.client, post("Mine", { status: "published" }))
      const id = { id: mine.id }
      const anonymous = c.visitor.client
      yield* anonymous.adminBlog.list({ urlParams: {} }).pipe(expectError(401, "AUTH_REQUIRED"))
      yield* anonymous.adminBlog.create({ payload: post("X") }).pipe(expectError(401, "AUTH_REQUIRED"))
      yield* anonymous.adminBlog.get({ path: id }).pipe(expectError(401, "AUTH_REQUIRED"))
      yield* anonymous.adminBlog.update({ path: id, payload: { title: "X" } }).pipe(expectError(401, "AUTH_REQUIRED"))
      yield* anonymous.adminBlog.delete({ path: id }).pipe(expectError(401, "AUTH_REQUIRED"))
      yield* anonymous.adminBlog.toggleStatus({ path: id }).pipe(expectError(401, "AUTH_REQUIRED"))
      const broker = yield* makeActor(c.tenant, { role: "broker" }, "token")
      const coordinator = yield* makeActor(c.tenant, { role: "coordinator" }, "token")
      for (const who of [c.member, broker, coordinator]) {
        const client = who.client
        yield* client.adminBlog.list({ urlParams: {} }).pipe(expectError(403, "FORBIDDEN"))
        yield* client.adminBlog.create({ payload: post("X") }).pipe(expectError(403, "FORBIDDEN"))
        yield* client.adminBlog.get({ path: id }).pipe(expectError(403, "FORBIDDEN"))
        yield* client.adminBlog.update({ path: id, payload: { title: "X" } }).pipe(expectError(403, "FORBIDDEN"))
        yield* client.adminBlog.delete({ path: id }).pipe(expectError(403, "FORBIDDEN"))
        yield* client.adminBlog.toggleStatus({ path: id }).pipe(expectError(403, "FORBIDDEN"))
      }

      const other = yield* community({ signIn: "token" })
      const stranger = other.admin.client
      yield* stranger.adminBlog.get({ path: id }).pipe(expectError(404, "NOT_FOUND"))
      yield* stranger.adminBlog.update({ path: id, payload: { title: "X" } }).pipe(expectError(404, "NOT_FOUND"))
      yield* stranger.adminBlog.toggleStatus({ path: id }).pipe(expectError(404, "NOT_FOUND"))
      yield* stranger.adminBlog.delete({ path: id }).pipe(expectError(404, "NOT_FOUND"))
      assert.deepStrictEqual((yield* adminList(stranger)).data, [])
      // The other community's public blog does not have it either.
      assert.deepStrictEqual((yield* publicList(other.visitor.client)).data, [])
      yield* other.visitor.client.blog.get({ path: { slug: mine.slug } }).pipe(expectError(404, "NOT_FOUND"))
      // Its admin's token does not work here.
      const foreignToken = yield* apiClient({ ...other.adminHeaders, "x-tenant-id": String(c.tenant.id) })
      yield* foreignToken.adminBlog.delete({ path: id }).pipe(expectError(401, "AUTH_REQUIRED"))
      // Nothing changed.
      assert.deepStrictEqual((yield* publicGet(c.visitor.client, mine.slug)).data, mine)

      // A platform super-admin naming the community writes posts; they are not one of its members.
      const superAdmin = yield* actor(yield* makeSuperAdmin(), "token")
      const asSuper = yield* apiClient({ ...superAdmin.headers, "x-tenant-id": String(c.tenant.id) })
      const bySuper = yield* create(asSuper, post("From the platform", { status: "published" }))
      assert.deepInclude(bySuper, { author_id: UserId.make(superAdmin.id), author: null })
      assert.deepStrictEqual(titles((yield* publicList(c.visitor.client)).data), ["From the platform", "Mine"])
    }))

  it.effect("with blog off the public blog is 403 FEATURE_DISABLED; admins still manage posts", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      const published = yield* create(c.admin.client, post("Out there", { status: "published" }))
      const off = yield* rawRequest("PUT", "/api/v2/admin/config/features", {
        headers: c.adminHeaders,
        body: JSON.stringify({ blog: false })
      })
      assert.strictEqual(off.status, 200, off.text)
      yield* c.visitor.client.blog.list({ urlParams: {} }).pipe(expectError(403, "FEATURE_DISABLED"))
      yield* c.member.client.blog.get({ path: { slug: published.slug } }).pipe(expectError(403, "FEATURE_DISABLED"))
      yield* c.admin.client.blog.list({ urlParams: {} }).pipe(expectError(403, "FEATURE_DISABLED"))
      yield* create(c.admin.client, post("Written while off"))
      assert.strictEqual((yield* adminList(c.admin.client)).meta.total, 2)
      // Help is a feature of its own.
      yield* c.visitor.client.help.faqs({ urlParams: {}, withResponse: true }).pipe(expectStatus(200))

      yield* c.admin.client.adminConfig.setFeature({ payload: { feature: "blog", enabled: true } })
      assert.deepStrictEqual(titles((yield* publicList(c.visitor.client)).data), ["Out there"])
    }))

  it.effect("writes are in the activity log as blog.created, blog.updated, blog.status-toggled and blog.deleted", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      const admin = c.admin.client
      const created = yield* create(admin, post("Audited"))
      yield* admin.adminBlog.update({ path: { id: created.id }, payload: { title: "Audited again" } })
      yield* admin.adminBlog.toggleStatus({ path: { id: created.id } })
      yield* admin.adminBlog.delete({ path: { id: created.id } })
      // Refused or failed writes leave no entry.
      yield* c.member.client.adminBlog.create({ payload: post("Refused") }).pipe(expectError(403, "FORBIDDEN"))
      yield* admin.adminBlog.toggleStatus({ path: { id: created.id } }).pipe(expectError(404, "NOT_FOUND"))
      for (const action of ["blog.created", "blog.updated", "blog.status-toggled", "blog.deleted"]) {
        const log = yield* admin.adminActivity.log({ urlParams: { action } })
        assert.strictEqual(log.data.length, 1, action)
        assert.deepInclude(log.data[0]!, { action, target_type: "blog", target_id: String(created.id) })
      }
      const all = yield* admin.adminActivity.log({ urlParams: { target_type: "blog" } })
      assert.strictEqual(all.meta.total, 4)
    }))
})
