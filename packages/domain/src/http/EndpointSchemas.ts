import type { HttpApi, HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { Option, type Schema } from "effect"

/** A rewrite of one request schema. */
export type SchemaMapping = (schema: Schema.Schema.Any) => Schema.Schema.Any

/**
 * A copy of the contract whose every endpoint has `f` of its path, query, headers and payload schema; everything
 * else (success and error schemas, middleware, annotations, the order of groups and endpoints) is kept.
 */
export const mapEndpointSchemas = <A extends HttpApi.HttpApi.Any>(api: A, f: SchemaMapping): A => {
  let out = api as unknown as HttpApi.HttpApi.AnyWithProps
  for (const group of Object.values(out.groups) as Array<HttpApiGroup.HttpApiGroup.AnyWithProps>) {
    let next = group
    for (const endpoint of Object.values(group.endpoints) as Array<HttpApiEndpoint.HttpApiEndpoint.AnyWithProps>) {
      next = next.add(mapRequestSchemas(endpoint, f)) as HttpApiGroup.HttpApiGroup.AnyWithProps
    }
    out = out.add(next) as HttpApi.HttpApi.AnyWithProps
  }
  return out as unknown as A
}

const mapRequestSchemas = (
  endpoint: HttpApiEndpoint.HttpApiEndpoint.AnyWithProps,
  f: SchemaMapping
): HttpApiEndpoint.HttpApiEndpoint.AnyWithProps =>
  Object.assign(Object.create(Object.getPrototypeOf(endpoint)), endpoint, {
    pathSchema: Option.map(endpoint.pathSchema, f),
    urlParamsSchema: Option.map(endpoint.urlParamsSchema, f),
    headersSchema: Option.map(endpoint.headersSchema, f),
    payloadSchema: Option.map(endpoint.payloadSchema, f)
  })
