import type { HttpApi } from "@effect/platform"
import { Option, Schema, SchemaAST as AST } from "effect"
import { mapEndpointSchemas } from "./EndpointSchemas.js"

/**
 * JSON Schema generation shows a transformation by its encoded side only and drops filters without a JSON Schema,
 * which hides facts clients need from the OpenAPI document:
 *
 * - checks that follow a string-to-string transformation: `Schema.Trim.pipe(Schema.maxLength(200))` came out as a
 *   bare `{"type": "string"}`, without its `maxLength`;
 * - numbers read from strings (path and query parameters): `NumberFromString.pipe(Schema.int(), ...)` came out as a
 *   string, without `integer` or its bounds;
 * - the description of a filter that has no JSON Schema of its own (`Schema.filter(isTimeZone, ...)`).
 *
 * The document is therefore generated from a copy of the contract whose request schemas (path, query, headers,
 * body) are rewritten for documentation only: checks after `Trim` sit on the string the client sends,
 * `NumberFromString` is the number it reads, and such filters carry their description. The copy never serves or
 * decodes a request; the contract is unchanged.
 */
export const documentationCopy = <A extends HttpApi.HttpApi.Any>(api: A): A => mapEndpointSchemas(api, documented)

const documented = (schema: Schema.Schema.Any): Schema.Schema.Any => {
  const ast = documentedAST(schema.ast)
  return ast === schema.ast ? schema : Schema.make(ast)
}

const memo = new WeakMap<AST.AST, AST.AST>()

/** The documentation form of a request schema's AST (see {@link documentationCopy}); unchanged parts are kept. */
const documentedAST = (ast: AST.AST): AST.AST => {
  const known = memo.get(ast)
  if (known !== undefined) return known
  const out = rewrite(ast)
  memo.set(ast, out)
  return out
}

const rewrite = (ast: AST.AST): AST.AST => {
  switch (ast._tag) {
    case "Transformation": {
      // `NumberFromString`, and `NumberFromString.pipe(Schema.compose(Id))`: the client sends the number.
      if (isNumberFromString(ast) || (isNumberFromString(ast.from) && isCompose(ast))) return AST.typeAST(ast)
      const from = documentedAST(ast.from)
      return from === ast.from ? ast : new AST.Transformation(from, ast.to, ast.transformation, ast.annotations)
    }
    case "Refinement": {
      let from = documentedAST(ast.from)
      // Checks after `Trim` (or any string-to-string transformation) are documented on the string itself.
      while (AST.isTransformation(from) && isStringToString(from)) from = from.from
      // A filter without a JSON Schema of its own (`Schema.filter(isTimeZone, ...)`) would lose its description.
      const annotations = ast.annotations[AST.JSONSchemaAnnotationId] === undefined &&
          ast.annotations[AST.DescriptionAnnotationId] !== undefined
        ? { ...ast.annotations, [AST.JSONSchemaAnnotationId]: {} }
        : ast.annotations
      return from === ast.from && annotations === ast.annotations
        ? ast
        : new AST.Refinement(from, ast.filter, annotations)
    }
    case "TypeLiteral": {
      const properties = ast.propertySignatures.map((p) =>
        retyped(p, (type) => new AST.PropertySignature(p.name, type, p.isOptional, p.isReadonly, p.annotations))
      )
      const indexes = ast.indexSignatures.map((i) =>
        retyped(i, (type) => new AST.IndexSignature(i.parameter, type, i.isReadonly))
      )
      return same(properties, ast.propertySignatures) && same(indexes, ast.indexSignatures)
        ? ast
        : new AST.TypeLiteral(properties, indexes, ast.annotations)
    }
    case "Union": {
      const types = ast.types.map(documentedAST)
      return same(types, ast.types) ? ast : AST.Union.make(types, ast.annotations)
    }
    case "TupleType": {
      const elements = ast.elements.map((e) =>
        retyped(e, (type) => new AST.OptionalType(type, e.isOptional, e.annotations))
      )
      const rest = ast.rest.map((r) => retyped(r, (type) => new AST.Type(type, r.annotations)))
      return same(elements, ast.elements) && same(rest, ast.rest)
        ? ast
        : new AST.TupleType(elements, rest, ast.isReadonly, ast.annotations)
    }
    case "Suspend":
      return new AST.Suspend(() => documentedAST(ast.f()), ast.annotations)
    default:
      return ast
  }
}

/** The part (property, index signature, tuple element) with its type in documentation form, or the part itself. */
const retyped = <P extends { readonly type: AST.AST }>(part: P, make: (type: AST.AST) => P): P => {
  const type = documentedAST(part.type)
  return type === part.type ? part : make(type)
}

/** Whether a rewrite kept every item of a list. */
const same = <T>(next: ReadonlyArray<T>, previous: ReadonlyArray<T>): boolean => next.every((x, n) => x === previous[n])

const isNumberFromString = (ast: AST.AST): boolean =>
  AST.isTransformation(ast) && Option.getOrUndefined(AST.getIdentifierAnnotation(ast)) === "NumberFromString"

const isCompose = (ast: AST.Transformation): boolean => ast.transformation._tag === "ComposeTransformation"

/** The keyword under any checks: `Trimmed` is a string, `Int` a number. */
const baseOf = (ast: AST.AST): AST.AST => AST.isRefinement(ast) ? baseOf(ast.from) : ast

const isStringToString = (ast: AST.Transformation): boolean =>
  AST.isStringKeyword(baseOf(AST.encodedAST(ast))) && AST.isStringKeyword(baseOf(AST.typeAST(ast)))
