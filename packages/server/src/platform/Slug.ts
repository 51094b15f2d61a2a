/** Longest slug made from a name (before a `-N` suffix). */
export const SLUG_MAX_LENGTH = 80

/**
 * A URL-safe slug of `name`: ASCII lowercase letters and digits separated by single hyphens, accents dropped
 * ("Café & Bäckerei" → "cafe-backerei"). A name with nothing to keep (only symbols, or a script without Latin
 * letters) gives `fallback`.
 */
export const slugify = (name: string, fallback = "category"): string => {
  const slug = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/ß/g, "ss")
    .replace(/[æ]/g, "ae")
    .replace(/[øœ]/g, (c) => (c === "ø" ? "o" : "oe"))
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, SLUG_MAX_LENGTH)
    .replace(/-+$/, "")
  return slug === "" ? fallback : slug
}

/** `base`, or the first of `base-2`, `base-3`, ... that is not in `taken`. */
export const uniqueSlug = (base: string, taken: ReadonlySet<string>): string => {
  if (!taken.has(base)) return base
  for (let n = 2;; n++) {
    const candidate = `${base}-${n}`
    if (!taken.has(candidate)) return candidate
  }
}
