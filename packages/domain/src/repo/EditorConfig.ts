/**
 * `GET /repos/{o}/{r}/editorconfig/{filepath}` (api-facts §4.10): the properties the repository's
 * root `.editorconfig` gives a file name. Matching (sections, globs, later sections win) is the
 * EditorConfig library's job behind the EditorConfigMatcher port; what Forgejo shows of the
 * result is decided here.
 */
import { Context, type Effect, Schema } from "effect"
import type { Invalid } from "../errors.ts"

/** Forgejo's editorconfig Definition as it serialises: four keys, each left out when empty. */
export interface EditorConfigDefinition {
  readonly charset?: string
  readonly indent_style?: string
  readonly indent_size?: string
  readonly end_of_line?: string
}

export const EDITORCONFIG_PATH = ".editorconfig"

/** Too many lookups wait for the matcher already: refused at once; the caller may try again later. */
export class EditorConfigBusy extends Schema.TaggedError<EditorConfigBusy>()("EditorConfigBusy", {
  message: Schema.String,
  retryAfterSeconds: Schema.Number
}) {}

export class EditorConfigMatcher extends Context.Service<EditorConfigMatcher, {
  /**
   * The merged properties of the sections of `config` (the `.editorconfig` bytes, taken as the
   * root file) that match `fileName`, later sections winning. Invalid when it cannot be read,
   * EditorConfigBusy when too many lookups are waiting.
   */
  readonly propertiesFor: (
    config: Uint8Array,
    fileName: string
  ) => Effect.Effect<Readonly<Record<string, unknown>>, Invalid | EditorConfigBusy>
}>()("@kiln/domain/repo/EditorConfigMatcher") {}

/**
 * What Kiln matches at all. Each brace set (`{a,b}`) multiplies the patterns a section header
 * compiles into, and the library compiles every header for every lookup: a 2 KB file of 20 headers
 * of 18 sets each took 27 s of CPU. Real files have a few sets per header and a few dozen sections.
 * A numeric range (`{1..100000}`) expands too; the matcher's time limit stops what gets past these.
 */
export const EDITORCONFIG_LIMITS = {
  /** Bytes of the file, checked before it is read. */
  maxBytes: 64 * 1024,
  maxSections: 256,
  /** Characters of a section header line. */
  maxHeaderLength: 256,
  /** Opening braces in one section header. */
  maxBraceSets: 8
} as const

/** Why `text` (an `.editorconfig`) is refused before matching, or undefined when it is within the limits. */
export const editorConfigProblem = (text: string): string | undefined => {
  let sections = 0
  for (const raw of text.split(/\r\n|\n|\r/)) {
    const line = raw.trim()
    if (!line.startsWith("[")) continue
    sections++
    if (sections > EDITORCONFIG_LIMITS.maxSections) {
      return `.editorconfig has more than ${EDITORCONFIG_LIMITS.maxSections} sections`
    }
    if (line.length > EDITORCONFIG_LIMITS.maxHeaderLength) {
      return `.editorconfig section header is ${line.length} characters long, more than ${EDITORCONFIG_LIMITS.maxHeaderLength}`
    }
    const braces = line.split("{").length - 1
    if (braces > EDITORCONFIG_LIMITS.maxBraceSets) {
      return `.editorconfig section header has ${braces} brace sets, more than ${EDITORCONFIG_LIMITS.maxBraceSets}`
    }
  }
  return undefined
}

const shown = ["charset", "indent_style", "indent_size", "end_of_line"] as const

/**
 * The JSON Forgejo answers: `tab_width`, `trim_trailing_whitespace`, `insert_final_newline` and
 * unknown keys are never shown; values are text (`indent_size` 4 → "4"); `unset` counts as empty.
 */
export const definitionOf = (properties: Readonly<Record<string, unknown>>): EditorConfigDefinition => {
  const definition: { -readonly [K in keyof EditorConfigDefinition]: EditorConfigDefinition[K] } = {}
  for (const key of shown) {
    const value = properties[key]
    const text = typeof value === "string" || typeof value === "number" || typeof value === "boolean" ? String(value) : ""
    if (text !== "" && text !== "unset") definition[key] = text
  }
  return definition
}
