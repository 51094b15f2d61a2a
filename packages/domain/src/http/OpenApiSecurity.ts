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
  federationKey: {
    type: "http",
    scheme: "bearer",
    description: "Partner routes (`/api/v1/federation/*`): `Authorization: Bearer <api_key>` (an inbound API key " +
      "`tbk_…` made by the community's admin) or `Bearer <access_token>` from `POST /api/v1/federation/oauth/token`. " +
      "The key names the community; no tenant header is needed (one that disagrees → 403 `TENANT_MISMATCH`)."
  },
  federationApiKey: apiKey("header", "X-API-Key", "Partner routes: the inbound API key in a header of its own."),
  federationSignature: apiKey(
    "header",
    "X-Federation-Signature",
    "Partner routes, HMAC-SHA256: hex HMAC with the key's signing secret over " +
      "`METHOD\\nPATH\\nTIMESTAMP\\nNONCE\\nBODY` (PATH with its query as sent, BODY empty for GET), sent with " +
      "`X-Federation-Platform-ID` (the key's `key_prefix`), `X-Federation-Timestamp` (unix seconds, ±300 s) and " +
      "`X-Federation-Nonce` (8–128 characters, single-use for 10 minutes). Keys made with `signing` must sign."
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
  facts: Pick<OperationFacts, "tenant" | "auth" | "federation">
): Array<Record<string, Array<string>>> => {
  if (facts.federation) return [{ federationKey: [] }, { federationApiKey: [] }, { federationSignature: [] }]
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
