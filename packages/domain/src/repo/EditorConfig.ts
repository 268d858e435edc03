/**
 * `GET /repos/{o}/{r}/editorconfig/{filepath}` (api-facts §4.10): the properties the repository's
 * root `.editorconfig` gives a file name. Matching (sections, globs, later sections win) is the
 * EditorConfig library's job behind the EditorConfigMatcher port; what Forgejo shows of the
 * result is decided here.
 */
import { Context, type Effect } from "effect"
import type { Invalid } from "../errors.ts"

/** Forgejo's editorconfig Definition as it serialises: four keys, each left out when empty. */
export interface EditorConfigDefinition {
  readonly charset?: string
  readonly indent_style?: string
  readonly indent_size?: string
  readonly end_of_line?: string
}

export const EDITORCONFIG_PATH = ".editorconfig"

export class EditorConfigMatcher extends Context.Service<EditorConfigMatcher, {
  /**
   * The merged properties of the sections of `config` (the `.editorconfig` bytes, taken as the
   * root file) that match `fileName`, later sections winning. Invalid when it cannot be read.
   */
  readonly propertiesFor: (config: Uint8Array, fileName: string) => Effect.Effect<Readonly<Record<string, unknown>>, Invalid>
}>()("@kiln/domain/repo/EditorConfigMatcher") {}

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
