/**
 * Hostile changes to a valid request: what a careless or malicious client sends. Each keeps the
 * rest of the request valid, so the hostile part reaches as deep as the server lets it.
 */
import fc from "fast-check"
import type { Operation, Request } from "./SwaggerOperations.ts"

/** Text that is not a git ref name, or a ref name no file path or index holds (issue 27 item 3). */
const notARef = fc.constantFrom(
  "a\"b[c]",
  "'quoted'~^:?*",
  "x.lock",
  "a..b",
  "refs/heads/../../x",
  "@{-1}",
  "@",
  "trailing/",
  "/leading",
  "a//b",
  ".hidden",
  "ab/".repeat(3000) + "a",
  "é/".repeat(2000) + "é"
)

/** Printable text that does not compress: past ~2.7 kB no B-tree index holds it. */
const incompressible = fc.string({
  unit: fc.integer({ min: 0x21, max: 0x7e }).map((code) => String.fromCharCode(code)),
  minLength: 3000,
  maxLength: 20_000
})

/** Strings that break naive storage, parsing or rendering. */
const hostileText = fc.oneof(fc.constantFrom(
  "\u0000",
  "a\u0000b",
  "\ud800",
  "x\udfffy",
  "\u0001\u0008\u001b[31m\u007f",
  "\ud83d\ude00\u202e\u0000",
  "\u202egnp.exe",
  "../../../etc/passwd",
  "' OR 1=1 --",
  "%_\\",
  " ",
  "",
  "x".repeat(300),
  "x".repeat(3000),
  "\u00e9".repeat(40_000),
  "x".repeat(1 << 20)
), notARef, incompressible)

/** Names of fields that hold a ref (a branch, tag or commit), which get ref-breaking text most. */
const REF_FIELD = /(^|_)(ref|ref_name|branch|branch_name|tag_name|commitish|sha)$/

/** Raw (percent-encoded or deliberately broken) path segments and query values. */
const hostileRaw = fc.oneof(
  fc.constantFrom(
    "%00",
    "a%00b",
    "%ED%A0%80",
    "%ED%BF%BF",
    "%C0%AF",
    "%zz",
    "%",
    "%E2%82",
    "..%2f..%2f..%2fetc%2fpasswd",
    "..",
    "%2e%2e",
    "%F0%9F%98%80%E2%80%AE%00",
    "%01%1B%7F",
    "-1",
    "0",
    "1.5",
    "1e400",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775809",
    "99999999999999999999",
    "NaN",
    "0x10",
    "x".repeat(3000)
  ),
  hostileText.filter((text) => text.length < 4000 && !/[\ud800-\udfff]/.test(text)).map(encodeURIComponent)
)

const deepArray = (depth: number) => "[".repeat(depth) + "]".repeat(depth)

/** JSON values of the wrong kind or out of range. */
const hostileJson: fc.Arbitrary<unknown> = fc.oneof(
  hostileText,
  fc.constantFrom(
    null,
    true,
    -1,
    0,
    1.5,
    2 ** 53,
    9223372036854775807,
    -9223372036854775808,
    1e308,
    [],
    {},
    ["\u0000"],
    [1, 2],
    { nested: "\u0000" },
    "9223372036854775808"
  ),
  // Deeper bodies are sent as text (below): fast-check walks the values it generates.
  fc.integer({ min: 10, max: 300 }).map((depth) => JSON.parse(deepArray(depth)) as unknown)
)

/** Whole bodies that are not what the route reads. */
const hostileBody = fc.constantFrom(
  { raw: "{", contentType: "application/json" },
  { raw: "{\"name\": }", contentType: "application/json" },
  { raw: "not json", contentType: "application/json" },
  { raw: "[]", contentType: "application/json" },
  { raw: "1", contentType: "application/json" },
  { raw: "\"x\"", contentType: "application/json" },
  { raw: "null", contentType: "application/json" },
  { raw: "", contentType: "application/json" },
  { raw: "{\"a\":\"\\ud800\"}", contentType: "application/json" },
  { raw: `{"subjects":${deepArray(10_000)}}`, contentType: "application/json" },
  { raw: `{"name":${"{\"a\":".repeat(10_000)}1${"}".repeat(10_000)}}`, contentType: "application/json" },
  { raw: deepArray(100_000), contentType: "application/json" },
  { raw: "{\"name\":\"x\"}", contentType: "text/plain" },
  { raw: "<name>x</name>", contentType: "application/xml" },
  { raw: "name=%zz&description=%00", contentType: "application/x-www-form-urlencoded" },
  { raw: "name=a%00b", contentType: "application/x-www-form-urlencoded" },
  { raw: "--b\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\nx\r\n--b--", contentType: "multipart/form-data" },
  { raw: "\u00ff\u00fe{}", contentType: "application/json; charset=utf-16" }
)

export type Mutation =
  | { readonly kind: "none" }
  | { readonly kind: "path"; readonly name: string; readonly value: string }
  | { readonly kind: "query"; readonly name: string; readonly value: string }
  | { readonly kind: "field"; readonly name: string; readonly value: unknown }
  | { readonly kind: "body"; readonly raw: string; readonly contentType: string }
  | { readonly kind: "method"; readonly method: string }

const QUERY_NAMES = ["page", "limit", "q", "sudo", "token", "access_token"]

export const mutationFor = (operation: Operation, request: Request): fc.Arbitrary<Mutation> => {
  const pathNames = Object.keys(request.path)
  const queryNames = [
    ...operation.parameters.filter((parameter) => parameter.in === "query").map((parameter) => parameter.name),
    ...QUERY_NAMES
  ]
  const json = request.body !== undefined && "json" in request.body ? request.body.json : undefined
  const fieldNames = typeof json === "object" && json !== null && !Array.isArray(json)
    ? Object.keys(json)
    : []
  const options: Array<fc.Arbitrary<Mutation>> = [
    fc.constant({ kind: "none" } as const),
    fc.record({ kind: fc.constant("query" as const), name: fc.constantFrom(...queryNames), value: hostileRaw }),
    hostileBody.map((body) => ({ kind: "body" as const, ...body })),
    fc.record({ kind: fc.constant("method" as const), method: fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS") })
  ]
  if (pathNames.length > 0) {
    options.push(fc.record({ kind: fc.constant("path" as const), name: fc.constantFrom(...pathNames), value: hostileRaw }))
  }
  const bodyFields = fieldNames.length > 0 ? fieldNames : ["name", "title", "description", "tag_name", "full_name"]
  options.push(fc.record({ kind: fc.constant("field" as const), name: fc.constantFrom(...bodyFields), value: hostileJson }))
  if (fieldNames.length > 0) {
    // Where the route has a body, most of the effort goes into its fields.
    options.push(fc.record({ kind: fc.constant("field" as const), name: fc.constantFrom(...fieldNames), value: hostileText }))
  }
  const refFields = fieldNames.filter((name) => REF_FIELD.test(name))
  if (refFields.length > 0) {
    options.push(fc.record({ kind: fc.constant("field" as const), name: fc.constantFrom(...refFields), value: fc.oneof(notARef, incompressible) }))
  }
  return fc.oneof(...options)
}

export const apply = (request: Request, mutation: Mutation): Request => {
  switch (mutation.kind) {
    case "none":
      return request
    case "path":
      return { ...request, path: { ...request.path, [mutation.name]: mutation.value } }
    case "query":
      return { ...request, query: { ...request.query, [mutation.name]: mutation.value } }
    case "field": {
      const json = request.body !== undefined && "json" in request.body ? request.body.json : {}
      const base = typeof json === "object" && json !== null && !Array.isArray(json) ? json : {}
      return { ...request, body: { json: { ...base, [mutation.name]: mutation.value } } }
    }
    case "body":
      return { ...request, body: { raw: mutation.raw, contentType: mutation.contentType } }
    case "method":
      return { ...request, method: mutation.method }
  }
}

/** How a mutation is shown in a failure report: long values cut short. */
export const describeMutation = (mutation: Mutation): string => {
  const text = JSON.stringify(mutation, (_, value: unknown) =>
    typeof value === "string" && value.length > 80 ? `${value.slice(0, 40)}…(${value.length} chars)` : value
  )
  return text.length > 300 ? `${text.slice(0, 200)}…(${text.length} chars)` : text
}
