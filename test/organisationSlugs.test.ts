import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { CurrentTenant } from "@timebank/domain"
import { OrganisationRegistration, SlugAttemptsExhausted, slugCandidate } from "@timebank/server"
import { Cause, Effect, Exit, Option, Random } from "effect"
import { makeTenant } from "./fixtures/tenants.js"
import { TestPlatform } from "./fixtures/TestApp.js"
import { makeUser, type TestUser } from "./fixtures/users.js"
import { makeOrganisation, type TestOrganisation } from "./fixtures/volunteering.js"

const register = (owner: TestUser, name: string) =>
  Effect.flatMap(OrganisationRegistration, (registration) =>
    registration.create({
      name,
      description: "Helping in the harbour on weekends.",
      contact_email: "harbour@example.org",
      ownerId: owner.id,
      status: "pending"
    }, owner.id)).pipe(
      Effect.provideService(CurrentTenant, owner.tenant),
      Effect.provide(OrganisationRegistration.Default)
    )

/** Gives an existing organisation the slug a new registration will try. */
const holdSlug = (organisation: TestOrganisation, slug: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql`UPDATE vol_organisations SET slug = ${slug} WHERE id = ${organisation.id}`
  )
    .pipe(Effect.orDie)

const organisationsNamed = (owner: TestUser, name: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ id: string; slug: string }>`
      SELECT id, slug FROM vol_organisations WHERE tenant_id = ${owner.tenant.id} AND name = ${name}`).pipe(
      Effect.orDie
    )

/** Suffixes 0x000001, then 0x000002, then again: attempt 2 and attempt 3 are predictable. */
const predictable = () => Random.fixed([1, 2])

const owners = Effect.gen(function*() {
  const tenant = yield* makeTenant()
  return { owner: yield* makeUser(tenant), other: yield* makeUser(tenant) }
})

layer(TestPlatform(), { excludeTestServices: true, timeout: "120 seconds" })("organisation slugs", (it) => {
  describe("slugCandidate", () => {
    it.effect("attempt 1 is the name's slug; later attempts add a 6-hex suffix from Random", () =>
      Effect.gen(function*() {
        assert.strictEqual(yield* slugCandidate("Harbour Helpers!", 1), "harbour-helpers")
        assert.strictEqual(yield* slugCandidate("Harbour Helpers!", 2), "harbour-helpers-000001")
        assert.strictEqual(yield* slugCandidate("Harbour Helpers!", 3), "harbour-helpers-000002")
        assert.strictEqual(yield* slugCandidate("!!!", 1), "organisation")
        const big = yield* slugCandidate("Big", 2).pipe(Effect.withRandom(Random.fixed([0xabcdef])))
        assert.strictEqual(big, "big-abcdef")
      }).pipe(Effect.withRandom(predictable())))
  })

  describe("OrganisationRegistration.create", () => {
    it.effect("succeeds on attempt 3 when attempts 1 and 2 collide", () =>
      Effect.gen(function*() {
        const { other, owner } = yield* owners
        yield* holdSlug(yield* makeOrganisation(other, { name: "Harbour One" }), "harbour-helpers")
        yield* holdSlug(yield* makeOrganisation(other, { name: "Harbour Two" }), "harbour-helpers-000001")
        const row = yield* register(owner, "Harbour Helpers").pipe(Effect.withRandom(predictable()))
        assert.strictEqual(row.slug, "harbour-helpers-000002")
        assert.strictEqual(row.status, "pending")
        assert.deepStrictEqual(
          (yield* organisationsNamed(owner, "Harbour Helpers")).map((r) => r.slug),
          ["harbour-helpers-000002"]
        )
        const members = yield* Effect.flatMap(SqlClient.SqlClient, (sql) =>
          sql<{ user_id: string; role: string }>`
            SELECT user_id, role FROM vol_organisation_members WHERE organisation_id = ${row.id}`).pipe(Effect.orDie)
        assert.deepStrictEqual(members, [{ user_id: String(owner.id), role: "owner" }])
      }))

    it.effect("dies with SlugAttemptsExhausted after 3 collisions, and writes nothing", () =>
      Effect.gen(function*() {
        const { other, owner } = yield* owners
        const slugs = ["harbour-helpers", "harbour-helpers-000001", "harbour-helpers-000002"]
        for (const [i, slug] of slugs.entries()) {
          yield* holdSlug(yield* makeOrganisation(other, { name: `Harbour Taken ${i}` }), slug)
        }
        const exit = yield* register(owner, "Harbour Helpers").pipe(Effect.withRandom(predictable()), Effect.exit)
        assert.isTrue(Exit.isFailure(exit))
        if (Exit.isFailure(exit)) {
          const defect = Cause.dieOption(exit.cause)
          assert.isTrue(Option.isSome(defect) && defect.value instanceof SlugAttemptsExhausted, String(exit.cause))
          assert.isTrue(Option.isNone(Cause.failureOption(exit.cause)))
        }
        assert.deepStrictEqual(yield* organisationsNamed(owner, "Harbour Helpers"), [])
        const events = yield* Effect.flatMap(SqlClient.SqlClient, (sql) =>
          sql<{ n: number }>`
            SELECT count(*)::int AS n FROM outbox_events
            WHERE tenant_id = ${owner.tenant.id} AND event_type = 'OrganisationRegistered'`).pipe(Effect.orDie)
        assert.strictEqual(events[0]!.n, 0)
      }))

    it.effect("the same suffix drawn twice also exhausts the 3 attempts (no 4th try)", () =>
      Effect.gen(function*() {
        const { other, owner } = yield* owners
        yield* holdSlug(yield* makeOrganisation(other, { name: "Harbour A" }), "harbour-helpers")
        yield* holdSlug(yield* makeOrganisation(other, { name: "Harbour B" }), "harbour-helpers-abcdef")
        // With a suffix of 0x000001 on a 4th try it would succeed; it must not get one.
        const exit = yield* register(owner, "Harbour Helpers").pipe(
          Effect.withRandom(Random.fixed([0xabcdef, 0xabcdef, 1])),
          Effect.exit
        )
        assert.isTrue(Exit.isFailure(exit) && Cause.isDie(exit.cause), String(exit))
        assert.deepStrictEqual(yield* organisationsNamed(owner, "Harbour Helpers"), [])
      }))
  })
})
