import { SqlError } from "@effect/sql/SqlError"
import { assert, describe, it } from "@effect/vitest"
import { isTransientSqlError } from "@timebank/server"

const withCause = (cause: unknown) => new SqlError({ cause, message: "Failed to execute statement" })

describe("isTransientSqlError", () => {
  it("a database that restarts, refuses, drops the connection or deadlocks is worth trying again", () => {
    for (const code of ["57P01", "57P03", "08006", "08001", "53300", "40001", "40P01", "ECONNREFUSED", "ECONNRESET"]) {
      assert.isTrue(isTransientSqlError(withCause({ code, message: "x" })), code)
    }
    assert.isTrue(isTransientSqlError(withCause(new Error("Connection terminated unexpectedly"))))
    assert.isTrue(isTransientSqlError(new SqlError({ message: "Failed to acquire connection for transaction" })))
  })

  it("a statement that breaks a constraint or carries bad data fails the same way every time", () => {
    for (const code of ["23503", "23505", "23514", "22P02", "42P01", "42703"]) {
      assert.isFalse(isTransientSqlError(withCause({ code, message: "x" })), code)
    }
    assert.isFalse(isTransientSqlError(withCause(new Error("invalid input syntax for type bigint"))))
  })
})
