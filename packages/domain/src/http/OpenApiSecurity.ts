import { SESSION_COOKIE } from "../identity/Authentication.js"
import type { OperationFacts } from "./OpenApiOperationFacts.js"

const apiKey = (location: "cookie" | "header", name: string, description: string) => ({
  type: "apiKey",
  in: location,
  name,
  description
})

/** The caller (bearer token or session cookie) and the tenant (`X-Tenant-ID` or `X-Tenant-Slug`) as schemes. */
export const SECURITY_SCHEMES = {
  bearerAuth: {
    type: "http",
    scheme: "bearer",
    bearerFormat: "JWT",
    description: "`Authorization: Bearer <token>`: the `access_token` of `POST /api/v2/auth/login` " +
      "(legacy JWTs are accepted too). A token is valid only in the community it was issued for."
  },
  sessionCookie: apiKey(
    "cookie",
    SESSION_COOKIE,
    "The session cookie set by a login with `remember: \"cookie\"`. With it, POST, PUT, PATCH and " +
      "DELETE also need the `X-CSRF-Token` header (from `GET /api/v2/csrf-token`); bearer callers need none."
  ),
  tenantId: apiKey(
    "header",
    "X-Tenant-ID",
    "Selects the community by its numeric id. Every route except the health probes needs a " +
      "community: `X-Tenant-ID`, else `X-Tenant-Slug`, else a tenant host name."
  ),
  tenantSlug: apiKey(
    "header",
    "X-Tenant-Slug",
    "Selects the community by its slug (such as `acme`); `X-Tenant-ID` wins when both are sent."
  )
}

/**
 * The security requirements of an operation: a tenant scheme where it needs a tenant, combined with a caller
 * scheme where it needs a caller; with an optional caller the tenant alone is an alternative.
 */
export const securityOf = (
  facts: Pick<OperationFacts, "tenant" | "auth">
): Array<Record<string, Array<string>>> => {
  const tenants = facts.tenant ? [{ tenantId: [] }, { tenantSlug: [] }] : [{}]
  const callers = [{ bearerAuth: [] }, { sessionCookie: [] }]
  const authenticated = callers.flatMap((caller) => tenants.map((tenant) => ({ ...tenant, ...caller })))
  switch (facts.auth) {
    case "required":
      return authenticated
    case "optional":
      return [...authenticated, ...tenants]
    case "none":
      return facts.tenant ? tenants : []
  }
}
