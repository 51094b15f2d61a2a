import { assert, describe, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { PassThrough } from "node:stream"
import { commands } from "../../apps/cli/src/Cli.js"
import { ExitCode, exitCodeOfStatus } from "../../apps/cli/src/ExitCode.js"
import { progressOn } from "../../apps/cli/src/Progress.js"
import { BATCH, batches, grantHours, SEED_SIZES, seedCounts } from "../../apps/cli/src/seed/SeedPlan.js"
import { type Errors, jsonOf, runInProcess } from "./inProcess.js"

// No database: none of these commands gets as far as needing one.
const cli = (...argv: Array<string>) => runInProcess(undefined, ...argv)

describe("cli --help", () => {
  it.effect("every command's --help prints its usage, options, examples and exit statuses (exit 0)", () =>
    Effect.gen(function*() {
      assert.isAtLeast(commands.length, 30)
      for (const command of commands) {
        const run = yield* cli(...command.name.split(" "), "--help")
        assert.strictEqual(run.code, 0, `${command.name}: ${run.stderr}`)
        assert.strictEqual(run.stderr, "")
        assert.include(run.stdout, `Usage: npm run cli -- ${command.name}`)
        for (const option of command.options) assert.include(run.stdout, `--${option.name}`, command.name)
        for (const argument of command.positionals) assert.include(run.stdout, argument.name, command.name)
        assert.match(run.stdout, /\nExamples:\n {2}npm run cli -- /, command.name)
        assert.match(run.stdout, /\nExit status:\n {2}0 +done\n {2}1 +/, command.name)
        assert.include(run.stdout, "--json")
      }
    }))

  it.effect("--help names every command; a group's --help its commands; each command has an example of itself", () =>
    Effect.gen(function*() {
      const all = yield* cli("--help")
      assert.strictEqual(all.code, 0)
      for (const command of commands) {
        assert.match(all.stdout, new RegExp(`^ {2}${command.name} +\\S`, "m"), command.name)
        assert.isTrue(command.examples.every((e) => e.startsWith(command.name)), command.name)
      }
      assert.match(all.stdout, /^ {2}4 +check failed/m)
      const group = yield* cli("tenant", "--help")
      assert.strictEqual(group.code, 0)
      assert.match(group.stdout, /^ {2}tenant suspend +suspend a tenant/m)
      assert.notInclude(group.stdout, "user create")
      const pinned = yield* cli("report", "export", "--help")
      assert.include(pinned.stdout, "hours (organisation_id,organisation,month,hours)")
      assert.match(pinned.stdout, /^ {2}3 +no such tenant, or no such export TYPE$/m)
    }))
})

describe("cli usage errors", () => {
  it.effect("exit 2 with one error line and one hint on stderr; with --json the envelope on stdout", () =>
    Effect.gen(function*() {
      const cases = [
        [["frobnicate"], "error: unknown command: frobnicate", "hint: the commands: npm run cli -- --help"],
        [[], "error: no command given", "hint: the commands: npm run cli -- --help"],
        [["tenant"], "error: tenant: which command? list, show, create, update, suspend, activate", "tenant --help"],
        [["tenant", "frob"], "error: unknown command: tenant frob (tenant has list,", "tenant --help"],
        [["tenant", "list", "--bogus"], "error: tenant list: unknown option --bogus", "tenant list --help"],
        [["tenant", "show"], "error: tenant show: expects ID|SLUG", "tenant show --help"],
        [["tenant", "show", "a", "b"], "error: tenant show: unexpected argument b", "tenant show --help"],
        [["user", "create", "--tenant", "x"], "error: user create: --email is required", "user create --help"],
        [["user", "list", "--tenant"], "error: user list: --tenant needs a value", "user list --help"],
        [["tenant", "list", "--json=yes"], "error: tenant list: --json takes no value", "tenant list --help"],
        [
          ["tenant", "update", "1", "--domain", "a.example", "--no-domain"],
          "error: tenant update: --domain and --no-domain exclude each other",
          "tenant update --help"
        ]
      ] as const
      for (const [argv, error, hint] of cases) {
        const run = yield* cli(...argv)
        assert.strictEqual(run.code, ExitCode.usage, argv.join(" "))
        assert.strictEqual(run.stdout, "", argv.join(" "))
        const lines = run.stderr.trimEnd().split("\n")
        assert.strictEqual(lines.length, 2, run.stderr)
        assert.include(lines[0], error)
        assert.include(lines[1], hint)
      }
      const json = yield* cli("tenant", "list", "--bogus", "--json")
      assert.strictEqual(json.code, 2)
      assert.deepStrictEqual(jsonOf<Errors>(json), {
        errors: [{ code: "USAGE_ERROR", message: "tenant list: unknown option --bogus" }]
      })
      const csvAsJson = yield* cli("report", "export", "hours", "--tenant", "x", "--json")
      assert.strictEqual(csvAsJson.code, 2)
      assert.deepStrictEqual(jsonOf<Errors>(csvAsJson).errors, [
        { code: "USAGE_ERROR", message: "report export: --json needs --out FILE (the CSV is the output)" }
      ])
    }))

  it.effect("push vapid-keys needs no database: a key pair as JSON, or as two environment lines", () =>
    Effect.gen(function*() {
      const json = yield* cli("push", "vapid-keys", "--json")
      assert.strictEqual(json.code, 0, json.stderr)
      const keys = jsonOf<{ public_key: string; private_key: string }>(json)
      assert.match(keys.public_key, /^[A-Za-z0-9_-]{87}$/)
      assert.match(keys.private_key, /^[A-Za-z0-9_-]{43}$/)
      const text = yield* cli("push", "vapid-keys")
      assert.match(text.stdout, /^VAPID_PUBLIC_KEY=[A-Za-z0-9_-]{87}\nVAPID_PRIVATE_KEY=[A-Za-z0-9_-]{43}\n$/)
    }))

  it.effect(
    "a database that cannot be reached is exit 1, said in one error line (and as JSON with --json)",
    () =>
      Effect.gen(function*() {
        const run = yield* runInProcess("postgres://postgres@127.0.0.1:1/none", "tenant", "list", "--json")
        assert.strictEqual(run.code, ExitCode.failed)
        assert.strictEqual(
          run.stderr,
          "error: DATABASE_UNAVAILABLE: PgClient: Failed to connect: connect ECONNREFUSED 127.0.0.1:1 (check DATABASE_URL)\n"
        )
        assert.strictEqual(jsonOf<Errors>(run).errors[0]?.code, "DATABASE_UNAVAILABLE")
      }),
    60_000
  )
})

describe("cli exit statuses and plans", () => {
  it("a refusal's exit status follows its HTTP status", () => {
    assert.deepStrictEqual([404, 422, 400, 409, 403, 500].map(exitCodeOfStatus), [3, 2, 2, 5, 5, 1])
  })

  it("seed counts: a size's, overridden one by one; refusals name the option", () => {
    assert.deepStrictEqual(Either.getOrThrow(seedCounts(undefined, {})), SEED_SIZES.small)
    assert.deepStrictEqual(
      Either.getOrThrow(seedCounts("large", { listings: "7", events: "0" })),
      { ...SEED_SIZES.large, listings: 7, events: 0 }
    )
    const refused = (size: string | undefined, counts: Record<string, string>) =>
      Either.match(seedCounts(size, counts), { onLeft: (e) => e.issues[0].field, onRight: () => "accepted" })
    assert.strictEqual(refused("huge", {}), "size")
    assert.strictEqual(refused(undefined, { events: "-1" }), "events")
    assert.strictEqual(refused(undefined, { events: "1.5" }), "events")
    assert.strictEqual(refused(undefined, { members: "0" }), "members")
    assert.strictEqual(refused(undefined, { members: "1", organisations: "0", listings: "0", events: "0" }), "members")
    assert.strictEqual(
      refused(undefined, { members: "0", organisations: "0", listings: "0", events: "0", transactions: "0" }),
      "accepted"
    )
  })

  it("batches cover 1..count in statements of at most BATCH rows; grants cover every transfer a member sends", () => {
    assert.deepStrictEqual(batches(0), [])
    assert.deepStrictEqual(batches(BATCH * 2 + 1), [[1, BATCH], [BATCH + 1, BATCH * 2], [BATCH * 2 + 1, BATCH * 2 + 1]])
    // 7 transfers round 3 members: member 1 sends 3 of them, at most 2 hours each.
    assert.isAtLeast(grantHours({ ...SEED_SIZES.small, members: 3, transactions: 7 }), 3 * 2)
  })

  it.effect("progress bars draw on a terminal's stream only", () =>
    Effect.gen(function*() {
      const stream = Object.assign(new PassThrough(), { isTTY: true, columns: 120 })
      let drawn = ""
      stream.on("data", (chunk: Buffer) => (drawn += chunk.toString()))
      const result = yield* progressOn(stream).track("members", 10, (bar) => Effect.as(bar.advance(10), "done"))
      assert.strictEqual(result, "done")
      assert.match(drawn, /members \[.*\] 100% \| 10\/10/)
      const silent = yield* progressOn(undefined).track("members", 10, (bar) => Effect.as(bar.advance(10), "quiet"))
      assert.strictEqual(silent, "quiet")
    }))
})
