import type { OpenApi } from "@effect/platform"
import { isJson, type Json, operationsOf } from "./OpenApiJson.js"

/**
 * Routes that answer in another platform's wire format (decisions D16: Komunitin's JSON:API, Credit Commons),
 * documented as they are answered: the edge rewrites every response of such a route (`WireDialect` on the server),
 * so the document gives their media type and error schema instead of ours. The description of each error
 * response keeps the list of our codes and says how they appear in the dialect.
 */
export interface DocumentedDialect {
  /** Whether a document path (`/api/v1/federation/{code}/transfers`) speaks the dialect. */
  readonly documents: (path: string) => boolean
  /** The media type of its success and error bodies. */
  readonly mediaType: string
  /** The error schema's component name and schema. */
  readonly errorSchemaName: string
  readonly errorSchema: Json
  /** How our codes appear in the dialect's errors, put before each error response's list of codes. */
  readonly errorNote: string
}

const resolveResponse = (response: unknown, responses: Record<string, Json>): Json | undefined => {
  if (!isJson(response)) return undefined
  const target = response["$ref"]
  return typeof target === "string" ? responses[target.replace("#/components/responses/", "")] : response
}

/** Rewrites the responses of every operation a dialect documents (call after the error responses are complete). */
export const applyDialects = (
  doc: OpenApi.OpenAPISpec,
  dialects: ReadonlyArray<DocumentedDialect>,
  responses: Record<string, Json>
): void => {
  const schemas = doc.components.schemas as unknown as Record<string, Json>
  for (const { op, path } of operationsOf(doc)) {
    const dialect = dialects.find((d) => d.documents(path))
    if (dialect === undefined) continue
    schemas[dialect.errorSchemaName] = structuredClone(dialect.errorSchema)
    const all = op.responses as unknown as Record<string, unknown>
    for (const [status, declared] of Object.entries(all)) {
      const response = resolveResponse(declared, responses)
      if (response === undefined) continue
      if (Number(status) >= 400) {
        all[status] = {
          ...response,
          description: `${dialect.errorNote}\n\n${String(response["description"] ?? "")}`,
          content: { [dialect.mediaType]: { schema: { $ref: `#/components/schemas/${dialect.errorSchemaName}` } } }
        }
      } else if (isJson(response["content"])) {
        const content = response["content"]
        const json = content["application/json"]
        all[status] = json === undefined ? response : { ...response, content: { [dialect.mediaType]: json } }
      }
    }
  }
}
