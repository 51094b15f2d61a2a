import type { HttpApi } from "@effect/platform"
import { Option, type Schema, SchemaAST } from "effect"
import { mapEndpointSchemas } from "./EndpointSchemas.js"

// Keeps the schema's own parse options (such as `onExcessProperty: "error"` on a payload) next to `errors: "all"`.
const reportAll = <S extends Schema.Schema.Any>(schema: S): S =>
  schema.annotations({
    parseOptions: { ...Option.getOrUndefined(SchemaAST.getParseOptionsAnnotation(schema.ast)), errors: "all" }
  }) as S

/**
 * The HttpApi decodes requests stopping at the first problem; decisions D1 wants one error entry per bad field.
 * This annotates every endpoint's path, query, headers and payload schema to report all problems, once for the
 * whole contract, so no endpoint can forget it.
 */
export const reportAllDecodeErrors = <A extends HttpApi.HttpApi.Any>(api: A): A => mapEndpointSchemas(api, reportAll)
