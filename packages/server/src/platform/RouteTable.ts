import { HttpApi } from "@effect/platform"

export interface RouteEntry {
  readonly method: string
  readonly path: string
}

/** Answers "which methods does this path accept?", so that a known path with a wrong method gets 405, not 404. */
export class RouteTable {
  private readonly patterns: ReadonlyArray<{ readonly method: string; readonly regex: RegExp }>

  constructor(routes: ReadonlyArray<RouteEntry>) {
    this.patterns = routes.map((r) => ({ method: r.method.toUpperCase(), regex: toRegex(r.path) }))
  }

  static fromApi(api: HttpApi.HttpApi.Any, extra: ReadonlyArray<RouteEntry> = []): RouteTable {
    const routes: Array<RouteEntry> = [...extra]
    HttpApi.reflect(api as HttpApi.HttpApi.AnyWithProps, {
      onGroup: () => {},
      onEndpoint: ({ endpoint }) => routes.push({ method: endpoint.method, path: endpoint.path })
    })
    return new RouteTable(routes)
  }

  allowedMethods(pathname: string): ReadonlyArray<string> {
    const methods = new Set<string>()
    for (const p of this.patterns) if (p.regex.test(pathname)) methods.add(p.method)
    return [...methods].sort()
  }
}

const toRegex = (path: string): RegExp =>
  new RegExp(
    "^" + path.split("/").map((seg) =>
      seg.startsWith(":") ? "[^/]+" : seg === "*" ? ".*" : seg.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
    ).join("/") + "/?$"
  )
