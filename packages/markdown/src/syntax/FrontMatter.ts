/**
 * YAML front matter as Forgejo reads it (`meta.go` `ExtractMetadataBytes`, `renderconfig.go`):
 * a first line of three or more dashes, the YAML up to the next such line, then the body. The
 * front matter is taken only when it parses and decodes into Forgejo's `RenderConfig` (a mapping
 * whose `include_toc`, `lang` and `gitea` fields have the expected shapes); otherwise the whole
 * text is markdown. `gitea: none|table|details` or `gitea: {meta, details_icon, include_toc}`
 * choose how the metadata shows; `include_toc: true|main` puts a table of contents first.
 */
import { type Document, isAlias, isMap, isScalar, parseDocument, type YAMLMap } from "yaml"

export type MetaMode = "none" | "table" | "details"

export interface RenderConfig {
  readonly meta: MetaMode
  readonly icon: string
  /** The raw `include_toc`: "true" or "main" show the table of contents in the document. */
  readonly toc: string
  readonly root: YAMLMap
}

export interface FrontMatter {
  readonly body: string
  /** Length of the front matter removed, for source positions (Forgejo's `metaLength`). */
  readonly offset: number
  /** Absent when the front matter held no YAML node (empty, comments only, or null). */
  readonly config: RenderConfig | undefined
}

/** Go's `unicode.IsSpace` beyond ASCII; ASCII spaces other than ' ' do not count in a separator. */
const unicodeSpace = "\\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000"
const separator = new RegExp(`^[ ${unicodeSpace}]*-{3,}[ ${unicodeSpace}]*$`)

const metaModeOf = (value: string): MetaMode => {
  const mode = value.trim().toLowerCase()
  return mode === "none" || mode === "table" ? mode : "details"
}

type Decoded = { readonly ok: true; readonly value: string | undefined } | { readonly ok: false }

/** yaml.v3 decoding a node into a `string` (or `*string`: undefined for null or absent). */
const decodeString = (document: Document, node: unknown): Decoded => {
  const resolved = isAlias(node) ? node.resolve(document) : node
  if (resolved === undefined || resolved === null) return { ok: true, value: undefined }
  if (!isScalar(resolved)) return { ok: false }
  return { ok: true, value: resolved.value === null ? undefined : resolved.source ?? String(resolved.value) }
}

const field = (map: YAMLMap, key: string): unknown =>
  map.items.find((pair) => isScalar(pair.key) && pair.key.source === key)?.value

/** `RenderConfig.UnmarshalYAML`; undefined where Forgejo's decoding fails. */
const decodeConfig = (document: Document, root: YAMLMap): RenderConfig | undefined => {
  const toc = decodeString(document, field(root, "include_toc"))
  const lang = decodeString(document, field(root, "lang"))
  if (!toc.ok || !lang.ok) return undefined
  const defaults: RenderConfig = { meta: "details", icon: "table", toc: toc.value ?? "", root }
  const gitea = field(root, "gitea")
  const asString = decodeString(document, gitea)
  if (asString.ok) return asString.value ? { ...defaults, meta: metaModeOf(asString.value) } : defaults
  const map = isAlias(gitea) ? gitea.resolve(document) : gitea
  if (!isMap(map)) return undefined
  const [meta, icon, giteaToc, giteaLang] = ["meta", "details_icon", "include_toc", "lang"].map((key) =>
    decodeString(document, field(map, key))
  )
  if (!meta?.ok || !icon?.ok || !giteaToc?.ok || !giteaLang?.ok) return undefined
  return {
    ...defaults,
    meta: meta.value === undefined ? defaults.meta : metaModeOf(meta.value),
    icon: icon.value === undefined ? defaults.icon : icon.value.trim().toLowerCase(),
    toc: giteaToc.value ?? defaults.toc
  }
}

const lineEnd = (text: string, from: number): number => {
  const end = text.indexOf("\n", from)
  return end === -1 ? text.length : end
}

/** Splits off the front matter; undefined when the text has none Forgejo would take. */
export const extractFrontMatter = (source: string): FrontMatter | undefined => {
  const firstEnd = lineEnd(source, 0)
  if (!separator.test(source.slice(0, firstEnd))) return undefined
  const frontStart = firstEnd + 1
  for (let start = frontStart; start < source.length;) {
    const end = lineEnd(source, start)
    if (separator.test(source.slice(start, end))) {
      const front = source.slice(frontStart, start)
      if (front === "") return undefined
      const body = end + 1 < source.length ? source.slice(end + 1) : ""
      const document = parseDocument(front)
      if (document.errors.length > 0) return undefined
      const root = document.contents
      const offset = source.length - body.length
      if (root === null || (isScalar(root) && root.value === null)) return { body, offset, config: undefined }
      if (!isMap(root)) return undefined
      const config = decodeConfig(document, root)
      return config === undefined ? undefined : { body, offset, config }
    }
    start = end + 1
  }
  return undefined
}
