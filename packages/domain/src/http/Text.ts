import { Schema } from "effect"

/** Length in Unicode code points (decisions D14a), not UTF-16 units: an emoji counts once. */
export const codePoints = (text: string): number => {
  let n = 0
  for (const _ of text) n++
  return n
}

/**
 * Trimmed text of `min` to `max` code points. The JSON Schema `minLength`/`maxLength` count code points as well,
 * so the documented limits are the enforced ones. With `min` 0, blank is allowed (callers read it as "none").
 */
export const TrimmedText = (min: number, max: number) =>
  Schema.Trim.pipe(
    Schema.filter((text) => {
      const n = codePoints(text)
      if (n < min) return min === 1 ? "must not be blank" : `must be at least ${min} characters`
      return n <= max || `must be at most ${max} characters`
    }, { jsonSchema: min > 0 ? { minLength: min, maxLength: max } : { maxLength: max } })
  )
