import type { HttpApi, HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { Option, type Schema, SchemaAST } from "effect"

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
export const reportAllDecodeErrors = <A extends HttpApi.HttpApi.Any>(api: A): A => {
  let out = api as unknown as HttpApi.HttpApi.AnyWithProps
  for (const group of Object.values(out.groups) as Array<HttpApiGroup.HttpApiGroup.AnyWithProps>) {
    let next = group
    for (const endpoint of Object.values(group.endpoints) as Array<HttpApiEndpoint.HttpApiEndpoint.AnyWithProps>) {
      next = next.add(Object.assign(Object.create(Object.getPrototypeOf(endpoint)), endpoint, {
        pathSchema: Option.map(endpoint.pathSchema, reportAll),
        urlParamsSchema: Option.map(endpoint.urlParamsSchema, reportAll),
        headersSchema: Option.map(endpoint.headersSchema, reportAll),
        payloadSchema: Option.map(endpoint.payloadSchema, reportAll)
      })) as HttpApiGroup.HttpApiGroup.AnyWithProps
    }
    out = out.add(next) as HttpApi.HttpApi.AnyWithProps
  }
  return out as unknown as A
}
