// The parameter grammar of RFC 7231 as the multipart parser reads it (multipasta, after fast-content-type-parse).
const PARAMETER =
  /; *([!#$%&'*+.^\w`|~-]+)=("(?:[\v\u0020\u0021\u0023-\u005b\u005d-\u007e\u0080-\u00ff]|\\[\v\u0020-\u00ff])*"|[!#$%&'*+.^\w`|~-]+) */gu

/**
 * Whether the content type is `multipart/form-data` with a boundary the parser will accept. The parser reports a
 * missing boundary by throwing while it is being built, which would be a 500; so such bodies stop here.
 */
export const hasMultipartBoundary = (contentType: string): boolean => {
  const semicolon = contentType.indexOf(";")
  if (semicolon === -1 || contentType.slice(0, semicolon).trim().toLowerCase() !== "multipart/form-data") return false
  let index = semicolon
  let boundary = false
  PARAMETER.lastIndex = index
  let match: RegExpExecArray | null
  while ((match = PARAMETER.exec(contentType)) !== null) {
    if (match.index !== index) return false
    index += match[0].length
    if (match[1]!.toLowerCase() === "boundary" && match[2]!.replace(/^"|"$/g, "") !== "") boundary = true
  }
  return index === contentType.length && boundary
}
