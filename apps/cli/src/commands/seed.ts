import { generatePassword, hashPassword, seedDemo as seed } from "@timebank/server"
import { Clock, Effect, Either } from "effect"
import { randomBytes } from "node:crypto"
import type { AnyCommand, Command, Flags, OptionSpec } from "../Command.js"
import { ExitCode } from "../ExitCode.js"
import { findTenant, tenantOption } from "../Operator.js"
import { Progress } from "../Progress.js"
import { fields, tenantJson, tenantLine } from "../Render.js"
import { batches, grantHours, SEED_KINDS, SEED_SIZES, type SeedCounts, seedCounts } from "../seed/SeedPlan.js"
import * as Writer from "../seed/SeedWriter.js"

export const seedDemo: Command<"services"> = {
  name: "seed demo",
  summary: "create the demo tenant and its admin unless they exist",
  details: "npm start does this too unless SEED_DEMO=false. The admin signs in as admin@demo.timebank.test.",
  positionals: [],
  options: [],
  examples: ["seed demo", "seed demo --json"],
  needs: "services",
  run: () =>
    Effect.map(seed(), ({ admin, created, tenant }) => ({
      json: { ...tenantJson(tenant), admin: { id: admin.id, email: admin.email } },
      text: `${created ? "seeded" : "already there:"} demo ${tenantLine(tenant)}, admin ${admin.email}`
    }))
}

const sizes = Object.entries(SEED_SIZES).map(([size, c]) =>
  `${size}: ${SEED_KINDS.map((kind) => `${c[kind].toLocaleString("en")} ${kind}`).join(", ")}`
)

const countOption = (kind: keyof SeedCounts): OptionSpec => ({
  name: kind,
  type: "string",
  value: "N",
  description: `how many ${kind} (default: the size's)`
})

/** Runs `write` for each batch of `count` rows under a bar labelled `label`. */
const inBatches = <E, R>(
  label: string,
  count: number,
  write: (range: readonly [number, number]) => Effect.Effect<unknown, E, R>
) =>
  count === 0 ?
    Effect.void :
    Effect.flatMap(Progress, (progress) =>
      progress.track(label, count, (bar) =>
        Effect.forEach(batches(count), (range) =>
          Effect.zipRight(write(range), bar.advance(range[1] - range[0] + 1)), { discard: true })))

const countsOf = (flags: Flags) =>
  Either.match(
    seedCounts(
      flags["size"] as string | undefined,
      Object.fromEntries(SEED_KINDS.flatMap((kind) => typeof flags[kind] === "string" ? [[kind, flags[kind]]] : []))
    ),
    { onLeft: Effect.fail, onRight: Effect.succeed }
  )

/** Writes every kind of row of `counts` for run `r`; members first, as the others belong to them. */
const writeAll = (r: Writer.SeedRun, counts: SeedCounts, passwordHash: string) =>
  Effect.gen(function*() {
    yield* inBatches("members", counts.members, (range) => Writer.insertMembers(r, passwordHash, range))
    const members = counts.members === 0 ? [] : yield* Writer.memberIds(r)
    yield* inBatches("organisations", counts.organisations, (range) => Writer.insertOrganisations(r, members, range))
    const categories = counts.listings === 0 ? [] : yield* Writer.listingCategories(r)
    yield* inBatches("listings", counts.listings, (range) => Writer.insertListings(r, members, categories, range))
    yield* inBatches("events", counts.events, (range) => Writer.insertEvents(r, members, range))
    if (counts.transactions > 0) {
      yield* Writer.ledgerAccounts(r, members)
      const hours = grantHours(counts)
      yield* inBatches("grants", members.length, (range) => Writer.insertGrants(r, members, hours, range))
      yield* inBatches("transactions", counts.transactions, (range) => Writer.insertTransfers(r, members, range))
    }
    yield* Writer.analyze
  })

export const seedData: Command<"services"> = {
  name: "seed data",
  summary: "fill a tenant with generated members, organisations, listings, events and transactions (benches)",
  details: [
    "Sizes:",
    ...sizes.map((s) => `  ${s}`),
    "Rows are written with set-based SQL, a batch per statement, consistent after each batch: organisations come " +
    "with owners, opportunities, volunteers and approved hours; events with RSVPs; members with ledger accounts and a " +
    "grant covering the transfers they send (ledger verify stays ok). Members sign in as seed-TAG-N@example.org " +
    "(N from 1) with one password. Run it before the API caches the tenant's pages, or expect them to refresh."
  ].join("\n"),
  positionals: [],
  options: [
    tenantOption,
    { name: "size", type: "string", value: "small|medium|large", description: "a preset of counts (default small)" },
    ...SEED_KINDS.map(countOption),
    { name: "password", type: "string", value: "P", description: "the members' password (default: generated, shown)" }
  ],
  examples: [
    "seed data --tenant demo",
    "seed data --tenant bench --size large --json",
    "seed data --tenant 7 --members 500 --organisations 0 --listings 2000 --events 0 --transactions 0"
  ],
  exits: [[ExitCode.notFound, "no tenant has this id or slug"]],
  needs: "services",
  run: (_, flags) =>
    Effect.gen(function*() {
      const counts = yield* countsOf(flags)
      const tenant = yield* findTenant(String(flags["tenant"]))
      const given = typeof flags["password"] === "string" ? flags["password"] : undefined
      const password = given ?? generatePassword()
      const run = { tenantId: tenant.id, tag: randomBytes(3).toString("hex") }
      const started = yield* Clock.currentTimeMillis
      yield* writeAll(run, counts, yield* hashPassword(password))
      const written = yield* Writer.countWritten(run)
      const seconds = ((yield* Clock.currentTimeMillis) - started) / 1000
      const emails = `seed-${run.tag}-{N}@example.org`
      return {
        json: {
          tenant: { id: tenant.id, slug: tenant.slug },
          tag: run.tag,
          counts: written,
          emails,
          ...(given === undefined ? { password } : {}),
          seconds
        },
        text: fields([
          ["tenant", `${tenant.id} "${tenant.slug}"`],
          ...SEED_KINDS.map((kind): readonly [string, string] => [kind, written[kind].toLocaleString("en")]),
          ["members sign in", `${emails}, N = 1..${written.members}`],
          ["password", given === undefined ? `${password} (generated; shown only now)` : "as given"],
          ["took", `${seconds.toFixed(1)} s`]
        ])
      }
    })
}

export const seedCommands: ReadonlyArray<AnyCommand> = [seedDemo, seedData]
