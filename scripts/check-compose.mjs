// Validates a compose file without Docker: the Compose Specification's JSON schema (deploy/compose-spec.json,
// from compose-spec/compose-spec, schema/compose-spec.json at 170098ba07d9, Apache-2.0) after the variable
// interpolation compose does, then the references a schema cannot see: services named in depends_on, named volumes
// and networks declared at the top level, and the files the stack mounts from this checkout present.
//   node scripts/check-compose.mjs [docker-compose.yml]
// Uses ajv 6 (draft-07) and js-yaml 4 (devDependencies).
import Ajv from "ajv"
import yaml from "js-yaml"
import { existsSync, readFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"

const file = resolve(process.argv[2] ?? "docker-compose.yml")
const schemaPath = join(dirname(fileURLToPath(import.meta.url)), "..", "deploy", "compose-spec.json")

/** `${VAR}`, `${VAR:-default}`, `${VAR-default}`, `$VAR`, `$$` as compose reads them; `${VAR:?err}` must be set. */
const interpolate = (text, problems) =>
  text.replace(
    /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-?])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g,
    (whole, name, colon, op, arg, bare) => {
      if (whole === "$$") return "$"
      const key = name ?? bare
      const value = process.env[key]
      const missing = value === undefined || (colon === ":" && value === "")
      if (!missing) return value
      if (op === "-") return arg
      if (op === "?") problems.push(`variable ${key} must be set: ${arg}`)
      return ""
    }
  )

const interpolateAll = (value, problems) =>
  typeof value === "string"
    ? interpolate(value, problems)
    : Array.isArray(value)
    ? value.map((v) => interpolateAll(v, problems))
    : value !== null && typeof value === "object"
    ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolateAll(v, problems)]))
    : value

const namesOf = (dependsOn) => Array.isArray(dependsOn) ? dependsOn : Object.keys(dependsOn ?? {})

/** The volume of a service's `volumes` entry: `{ type, source }` from the short or the long syntax. */
const volumeOf = (entry) => {
  if (typeof entry !== "string") return { type: entry.type, source: entry.source }
  const source = entry.split(":")[0]
  if (!entry.includes(":")) return { type: "anonymous", source }
  return { type: /^[./~]/.test(source) ? "bind" : "volume", source }
}

const referenceProblems = (doc, base) => {
  const problems = []
  const services = doc.services ?? {}
  for (const [name, service] of Object.entries(services)) {
    for (const target of namesOf(service.depends_on)) {
      if (!(target in services)) problems.push(`services.${name}.depends_on: no service ${target}`)
    }
    for (const entry of service.volumes ?? []) {
      const { type, source } = volumeOf(entry)
      if (type === "volume" && !(source in (doc.volumes ?? {}))) {
        problems.push(`services.${name}.volumes: volume ${source} is not declared under volumes`)
      }
      if (type === "bind" && source.startsWith(".") && !existsSync(resolve(base, source))) {
        problems.push(`services.${name}.volumes: ${source} does not exist`)
      }
    }
    for (const network of namesOf(service.networks)) {
      if (network !== "default" && !(network in (doc.networks ?? {}))) {
        problems.push(`services.${name}.networks: network ${network} is not declared under networks`)
      }
    }
  }
  return problems
}

const main = () => {
  let raw
  try {
    raw = yaml.load(readFileSync(file, "utf8"), { filename: file })
  } catch (error) {
    return [`not YAML: ${error.message}`]
  }
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return ["not a mapping"]
  const problems = []
  const doc = interpolateAll(raw, problems)
  const ajv = new Ajv({ allErrors: true })
  // The schema names draft-07 by its https address, which ajv 6 knows only as http://…#: the draft it implements.
  const { $schema: _draft07, ...schema } = JSON.parse(readFileSync(schemaPath, "utf8"))
  const validate = ajv.compile(schema)
  if (!validate(doc)) {
    for (const e of validate.errors) {
      problems.push(`${e.dataPath || "(top level)"}: ${e.message} ${JSON.stringify(e.params)}`)
    }
  }
  if (problems.length > 0) return problems
  return referenceProblems(doc, dirname(file))
}

const problems = main()
if (problems.length > 0) {
  process.stderr.write(`${file} is not a valid compose file:\n${problems.map((p) => `  ${p}\n`).join("")}`)
  process.exit(1)
}
process.stdout.write(`compose: ${file} fits the Compose Specification schema and its references resolve\n`)
