/** Finds JSON Schema 2020-12 / OpenAPI 3 vocabulary that a Swagger 2.0 document must not contain. */

const foreignKeywords = new Set(["anyOf", "oneOf", "not", "const", "$defs", "prefixItems", "examples", "nullable", "openapi"])

/** Maps whose keys are names chosen by the API, not keywords. */
const nameMaps = new Set(["properties", "definitions", "paths", "responses", "securityDefinitions"])

/** JSON-pointer-like paths of every foreign keyword, type array and non-local `$ref` (`x-` extensions skipped). */
export const foreignKeywordPaths = (value: unknown, path = "#"): Array<string> => {
  if (Array.isArray(value)) return value.flatMap((item, i) => foreignKeywordPaths(item, `${path}/${i}`))
  if (typeof value !== "object" || value === null) return []
  return Object.entries(value).flatMap(([key, child]) => {
    if (key.startsWith("x-")) return []
    const here = `${path}/${key}`
    const foreign = foreignKeywords.has(key) || (key === "type" && typeof child !== "string") ||
      (key === "$ref" && typeof child === "string" && !/^#\/(definitions|responses)\//.test(child))
    const children = nameMaps.has(key) && typeof child === "object" && child !== null
      ? Object.entries(child).flatMap(([name, sub]) => foreignKeywordPaths(sub, `${here}/${name}`))
      : foreignKeywordPaths(child, here)
    return foreign ? [here, ...children] : children
  })
}
