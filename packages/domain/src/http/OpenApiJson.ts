import type { OpenApi } from "@effect/platform"

/** Reading and addressing the generated OpenAPI document, shared by the rules of `withOpenApiDocument`. */

export type Json = Record<string, unknown>

export type Operation = OpenApi.OpenAPISpecOperation

export const isJson = (u: unknown): u is Json => typeof u === "object" && u !== null && !Array.isArray(u)

/** `schema.properties[name]`, when both are objects. */
export const propertyOf = (schema: unknown, name: string): unknown =>
  isJson(schema) && isJson(schema["properties"]) ? schema["properties"][name] : undefined

/** The reference to a component, such as `#/components/schemas/ErrorEnvelope`. */
export const ref = (kind: string, name: string): string => `#/components/${kind}/${name}`

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const

export interface OperationEntry {
  readonly path: string
  readonly method: OpenApi.OpenAPISpecMethodName
  readonly op: Operation
}

/** Every operation of the document, by path and then in the method order above. */
export const operationsOf = (doc: OpenApi.OpenAPISpec): Array<OperationEntry> =>
  Object.entries(doc.paths).flatMap(([path, item]) =>
    METHODS.flatMap((method) => {
      const op = item[method]
      return op === undefined ? [] : [{ path, method, op }]
    })
  )

/** The `errors[].code` values an operation can answer with, by HTTP status. */
export type Codes = Map<number, Set<string>>
