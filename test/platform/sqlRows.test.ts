import { assert, describe, it } from "@effect/vitest"
import { DbInt, DbNumeric, decodeFirst, decodeRows, decodeSingle } from "@timebank/server"
import { Cause, Effect, Exit, Option, Schema } from "effect"

const Row = Schema.Struct({ id: DbInt, amount: DbNumeric })
const read = (rows: ReadonlyArray<unknown>) => Effect.succeed(rows)

describe("SqlRows", () => {
  it("decodes int4 numbers, int8 strings and numeric strings", () => {
    const decode = Schema.decodeUnknownSync(Row)
    assert.deepStrictEqual(decode({ id: 7, amount: "2.50" }), { id: 7, amount: 2.5 })
    assert.deepStrictEqual(decode({ id: "9007199254740991", amount: -3 }), { id: 9007199254740991, amount: -3 })
  })

  it("refuses what a column of that type cannot hold", () => {
    const decode = Schema.decodeUnknownEither(Row)
    for (
      const bad of [{ id: "1.5", amount: "1" }, { id: "9007199254740993", amount: "1" }, { id: 1, amount: "1e3" }, {
        id: null,
        amount: "1"
      }, { id: 1, amount: "" }]
    ) {
      assert.isTrue(decode(bad)._tag === "Left", JSON.stringify(bad))
    }
  })

  it.effect("a row that does not decode is a defect at the repo boundary", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* decodeRows(Row)(read([{ id: "1", amount: "1.25" }])), [{ id: 1, amount: 1.25 }])
      assert.deepStrictEqual(yield* decodeFirst(Row)(read([])), Option.none())
      const exit = yield* Effect.exit(decodeRows(Row)(read([{ id: "x", amount: "1" }])))
      assert.isTrue(Exit.isFailure(exit) && Cause.isDie(exit.cause))
      const none = yield* Effect.exit(decodeSingle(Row)(read([])))
      assert.isTrue(Exit.isFailure(none) && Cause.isDie(none.cause))
    }))
})
