import { assert, describe, it } from "@effect/vitest"
import { UserId } from "@timebank/domain"
import { dbId, DbInt, DbNumeric, decodeFirst, decodeRows, decodeSingle } from "@timebank/server"
import { Cause, Effect, Either, Exit, Option, Schema } from "effect"

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

  it("an id column decodes to its branded id: a positive safe integer only", () => {
    const decode = Schema.decodeUnknownEither(dbId(UserId))
    assert.deepStrictEqual(decode("42"), Either.right(UserId.make(42)))
    assert.deepStrictEqual(decode(7), Either.right(UserId.make(7)))
    for (const bad of ["0", -1, "-3", 1.5, "12a", null, "9007199254740993"]) {
      assert.isTrue(Either.isLeft(decode(bad)), String(bad))
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
