import { ValidationFailed } from "@timebank/domain"
import { Array as Arr, Effect, ParseResult, Schema } from "effect"

/** Decodes input that did not come through the HTTP edge (CLI, jobs): failures become `ValidationFailed`. */
export const decodeInput = <A, I>(schema: Schema.Schema<A, I>) => (input: unknown) =>
  Schema.decodeUnknown(schema, { errors: "all", onExcessProperty: "error" })(input).pipe(
    Effect.mapError((error) => {
      const issues = ParseResult.ArrayFormatter.formatErrorSync(error).map((issue) => {
        const field = issue.path.map(String).join(".")
        return field === "" ? { message: issue.message } : { field, message: issue.message }
      })
      return new ValidationFailed({
        issues: Arr.isNonEmptyReadonlyArray(issues) ? issues : [{ message: "is not valid" }]
      })
    })
  )
