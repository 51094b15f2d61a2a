import { Option } from "effect"

/** What a request says about its tenant, before any lookup (spec "Tenant context" §2). */
export type TenantRef =
  | { readonly _tag: "Id"; readonly id: string }
  | { readonly _tag: "Slug"; readonly slug: string }
  | { readonly _tag: "Host"; readonly host: string; readonly subdomainSlug: Option.Option<string> }

/**
 * Reads the tenant reference: `X-Tenant-ID`, then `X-Tenant-Slug`, then the host. A host names a tenant when it
 * is a `<slug>.` subdomain of `BASE_DOMAIN` or could be a tenant's own domain; IP literals, `localhost` and the
 * base domain itself name none.
 */
export const tenantRefOf = (
  headers: Readonly<Record<string, string | undefined>>,
  baseDomain: Option.Option<string>
): Option.Option<TenantRef> => {
  const id = headers["x-tenant-id"]?.trim()
  if (id) return Option.some({ _tag: "Id", id })
  const slug = headers["x-tenant-slug"]?.trim()
  if (slug) return Option.some({ _tag: "Slug", slug: slug.toLowerCase() })
  const host = hostName(headers["host"])
  if (host === undefined || isAnonymousHost(host)) return Option.none()
  const base = Option.map(baseDomain, (d) => d.toLowerCase().replace(/^\./, ""))
  if (Option.isSome(base) && host === base.value) return Option.none()
  const subdomainSlug = Option.flatMap(base, (b) => {
    if (!host.endsWith(`.${b}`)) return Option.none()
    const label = host.slice(0, -(b.length + 1))
    return label.includes(".") ? Option.none() : Option.some(label)
  })
  return Option.some({ _tag: "Host", host, subdomainSlug })
}

const hostName = (host: string | undefined): string | undefined => {
  if (!host) return undefined
  const name = host.startsWith("[") ? host.slice(0, host.indexOf("]") + 1) : host.split(":")[0]
  return name?.toLowerCase() || undefined
}

const isAnonymousHost = (host: string): boolean =>
  host === "localhost" || host.endsWith(".localhost") || /^\d{1,3}(\.\d{1,3}){3}$/.test(host) || host.startsWith("[") ||
  !host.includes(".")
