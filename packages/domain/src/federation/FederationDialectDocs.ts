import type { DocumentedDialect } from "../http/OpenApiDialects.js"

const CODE_ROUTE = /^\/api\/v1\/federation\/\{[^}]+\}(\/|$)/
const CC_ROUTE = /^\/api\/v1\/federation\/\{[^}]+\}\/cc(\/|$)/

/** `/api/v1/federation/{CODE}/…` (not `/cc`): Komunitin's accounting API (decisions D16). */
export const JsonApiDialectDoc: DocumentedDialect = {
  documents: (path) => CODE_ROUTE.test(path) && !CC_ROUTE.test(path),
  mediaType: "application/vnd.api+json",
  errorSchemaName: "JsonApiErrors",
  errorSchema: {
    type: "object",
    description: "Komunitin's JSON:API errors: one error, `status` as a string",
    required: ["errors"],
    properties: {
      errors: {
        type: "array",
        minItems: 1,
        maxItems: 1,
        items: {
          type: "object",
          required: ["status", "code", "title", "detail"],
          properties: {
            status: { type: "string", pattern: "^[1-5][0-9]{2}$" },
            code: { type: "string" },
            title: { type: "string" },
            detail: { type: "string" }
          }
        }
      }
    }
  },
  errorNote: "In Komunitin's error shape `{\"errors\": [{\"status\", \"code\", \"title\", \"detail\"}]}`: " +
    "`VALIDATION_ERROR` and `INVALID_JSON` are 400 `FieldValidationError` / `BadRequest`, `NOT_FOUND` is " +
    "`NotFound`, `FORBIDDEN`/`PERMISSION_DENIED` `Forbidden`, 401s `Unauthorized`, `INSUFFICIENT_BALANCE` 400 " +
    "`InsufficientBalance`, an idempotency conflict 409 `Conflict`, a refused state change 400 `TransactionError`; " +
    "the federation codes (`FEDERATION_DISABLED`, `TENANT_MISMATCH`, `RATE_LIMITED`, …) keep their code and status."
}

/** `/api/v1/federation/{CODE}/cc/…`: Credit Commons as Komunitin's node speaks it (decisions D16). */
export const CreditCommonsDialectDoc: DocumentedDialect = {
  documents: (path) => CC_ROUTE.test(path),
  mediaType: "application/json",
  errorSchemaName: "CreditCommonsErrors",
  errorSchema: {
    type: "object",
    description: "Credit Commons errors: a list of messages",
    required: ["errors"],
    properties: { errors: { type: "array", minItems: 1, items: { type: "string" } } }
  },
  errorNote: "In Credit Commons' error shape `{\"errors\": [\"<message>\"]}`: the message of each code below."
}

export const FEDERATION_DIALECT_DOCS: ReadonlyArray<DocumentedDialect> = [CreditCommonsDialectDoc, JsonApiDialectDoc]
