import { HttpApi } from "@effect/platform"
import { MaxBodyBytes } from "@timebank/domain"
import { Context, Option } from "effect"

/** The path of a request target, without its query. */
export const pathOf = (url: string): string => {
  const query = url.indexOf("?")
  return query === -1 ? url : url.slice(0, query)
}

export interface RouteEntry {
  readonly method: string
  readonly path: string
  /** A body cap of this route other than the edge's default (an upload); see `MaxBodyBytes`. */
  readonly maxBodyBytes?: number | undefined
  /** The endpoint's annotations in the contract (what the audit trail reads, `AuditAction`). */
  readonly annotations?: Context.Context<never> | undefined
}

interface Pattern {
  readonly method: string
  readonly regex: RegExp
}

/** The route a request matched: its path template (`/api/v2/admin/users/:id`), parameter values, annotations. */
export interface MatchedRoute {
  readonly method: string
  readonly path: string
  readonly params: ReadonlyArray<string>
  readonly annotations: Context.Context<never>
}

interface Template extends Pattern {
  readonly path: string
  readonly annotations: Context.Context<never>
  readonly paramCount: number
}

/**
 * Answers "which methods does this path accept?", so that a known path with a wrong method gets 405, not 404; and
 * "how large may this request's body be?", for the few routes whose contract raises the cap.
 */
export class RouteTable {
  /** Methods of each path without parameters, and the patterns of the others: most paths are found in the map. */
  private readonly staticMethods: ReadonlyMap<string, ReadonlyArray<string>>
  private readonly patterns: ReadonlyArray<Pattern>
  private readonly bodyCaps: ReadonlyArray<Pattern & { readonly maxBodyBytes: number }>
  private readonly templates: ReadonlyArray<Template>
  private readonly getPaths: ReadonlySet<string>

  constructor(routes: ReadonlyArray<RouteEntry>) {
    const isStatic = (path: string) => !path.split("/").some((seg) => seg.startsWith(":") || seg === "*")
    this.patterns = routes.filter((r) => !isStatic(r.path)).map((r) => ({
      method: r.method.toUpperCase(),
      regex: toRegex(r.path)
    }))
    const staticMethods = new Map<string, Set<string>>()
    for (const r of routes.filter((r) => isStatic(r.path))) {
      const methods = staticMethods.get(r.path) ?? new Set()
      staticMethods.set(r.path, methods.add(r.method.toUpperCase()))
    }
    this.staticMethods = new Map([...staticMethods].map(([path, methods]) => [path, [...methods]]))
    this.templates = routes.map((r) => ({
      method: r.method.toUpperCase(),
      regex: toRegex(r.path),
      path: r.path,
      annotations: r.annotations ?? Context.empty(),
      paramCount: r.path.split("/").filter((seg) => seg.startsWith(":")).length
    }))
    this.getPaths = new Set(routes.filter((r) => r.method.toUpperCase() === "GET").map((r) => r.path))
    this.bodyCaps = routes.flatMap((r) =>
      r.maxBodyBytes === undefined
        ? []
        : [{ method: r.method.toUpperCase(), regex: toRegex(r.path), maxBodyBytes: r.maxBodyBytes }]
    )
  }

  static fromApi(api: HttpApi.HttpApi.Any, extra: ReadonlyArray<RouteEntry> = []): RouteTable {
    const routes: Array<RouteEntry> = [...extra]
    HttpApi.reflect(api as HttpApi.HttpApi.AnyWithProps, {
      onGroup: () => {},
      onEndpoint: ({ endpoint }) =>
        routes.push({
          method: endpoint.method,
          path: endpoint.path,
          maxBodyBytes: Option.getOrUndefined(Context.getOption(endpoint.annotations, MaxBodyBytes)),
          annotations: endpoint.annotations
        })
    })
    return new RouteTable(routes)
  }

  allowedMethods(pathname: string): ReadonlyArray<string> {
    // A static path matches with or without a trailing slash, like the patterns.
    const methods = new Set(this.staticMethods.get(pathname) ?? this.staticMethods.get(withoutSlash(pathname)))
    for (const p of this.patterns) if (p.regex.test(pathname)) methods.add(p.method)
    return [...methods].sort()
  }

  /** Whether `method` is one of `allowedMethods(pathname)`. */
  allows(method: string, pathname: string): boolean {
    const methods = this.staticMethods.get(pathname) ?? this.staticMethods.get(withoutSlash(pathname))
    if (methods?.includes(method)) return true
    for (const p of this.patterns) if (p.method === method && p.regex.test(pathname)) return true
    return false
  }

  /** The body cap a route declares for itself, if any; other requests keep the edge's default. */
  maxBodyBytes(method: string, pathname: string): Option.Option<number> {
    for (const cap of this.bodyCaps) {
      if (cap.method === method && cap.regex.test(pathname)) return Option.some(cap.maxBodyBytes)
    }
    return Option.none()
  }

  /**
   * The route `method` and `pathname` name; where several templates match (`/users/import`, `/users/:id`), the one
   * with the fewest parameters, as the router prefers static segments.
   */
  match(method: string, pathname: string): Option.Option<MatchedRoute> {
    let best: { readonly template: Template; readonly params: ReadonlyArray<string> } | undefined
    for (const t of this.templates) {
      if (t.method !== method || (best !== undefined && t.paramCount >= best.template.paramCount)) continue
      const found = t.regex.exec(pathname)
      if (found !== null) best = { template: t, params: found.slice(1).filter((p) => p !== undefined) }
    }
    return best === undefined ? Option.none() : Option.some({
      method,
      path: best.template.path,
      params: best.params,
      annotations: best.template.annotations
    })
  }

  /** Whether the path template (`/api/v2/admin/categories`) also answers GET: it names a collection or a record. */
  answersGet(template: string): boolean {
    return this.getPaths.has(template)
  }

  /** Whether any route declares its own body cap (most tables have none, and then no path needs parsing). */
  get hasBodyCaps(): boolean {
    return this.bodyCaps.length > 0
  }
}

const withoutSlash = (pathname: string) => (pathname.endsWith("/") ? pathname.slice(0, -1) : pathname)

const toRegex = (path: string): RegExp =>
  new RegExp(
    "^" + path.split("/").map((seg) =>
      seg.startsWith(":") ? "([^/]+)" : seg === "*" ? ".*" : seg.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
    ).join("/") + "/?$"
  )
