/**
 * Forgejo's `GitRefName` binding rule (git-check-ref-format, as Forgejo applies it to branch and tag
 * names given without their `refs/heads/` or `refs/tags/` prefix).
 */
import { Schema } from "effect"

// Control characters, DEL, space and the characters git reserves for revision syntax.
const forbiddenCharacter = /[\u0000-\u001f\u007f \\~^:?*[]/

/**
 * A loose ref is a file, each component a path segment: no file system takes a segment over 255
 * bytes, so such a ref can neither be created nor exist (git would fail with "File name too long").
 */
const MAX_COMPONENT_BYTES = 255

const utf8Length = (text: string): number => {
  let bytes = 0
  for (const character of text) {
    const code = character.codePointAt(0) ?? 0
    bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4
  }
  return bytes
}

/**
 * Whether `name` may name a branch or tag. The empty string is not a name; Forgejo lets an empty
 * optional field through this rule, so callers treat "" as "not given" before asking.
 */
export const isValidRefName = (name: string): boolean =>
  name.length > 0 &&
  !forbiddenCharacter.test(name) &&
  name !== "@" &&
  !name.startsWith("/") &&
  !name.endsWith("/") &&
  !name.endsWith(".") &&
  !name.includes("..") &&
  !name.includes("//") &&
  !name.includes("@{") &&
  name.split("/").every((component) =>
    !component.startsWith(".") && !component.endsWith(".lock") && utf8Length(component) <= MAX_COMPONENT_BYTES
  )

/** A branch or tag name that passes {@link isValidRefName}. */
export const RefName = Schema.String.check(
  Schema.makeFilter((name: string) => isValidRefName(name) || "must be a valid git reference name")
)
