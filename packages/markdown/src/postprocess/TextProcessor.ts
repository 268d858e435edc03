/**
 * The shape of Forgejo's post-processors (`modules/markup/html.go`): each looks at one text node,
 * replaces its first match with new nodes, and carries on in the text after the match until
 * nothing matches. Go's `\s` is ASCII whitespace only, hence `space`.
 */
import type { Element, ElementContent, Text } from "hast"

/** A text split by a processor: the untouched head, then new nodes and the remaining text pieces. */
export interface Split {
  readonly head: string
  readonly rest: ReadonlyArray<ElementContent>
}

export type TextProcessor = (text: string) => Split | undefined

export interface Match {
  readonly start: number
  readonly end: number
  readonly nodes: ReadonlyArray<ElementContent>
}

/** Go's `\s` and `\S`. */
export const space = "[\\t\\n\\f\\r ]"
export const nonSpace = "[^\\t\\n\\f\\r ]"

export const text = (value: string): Text => ({ type: "text", value })

/** `createLink`: `<a href class>content</a>` (the sanitizer keeps only Forgejo's allowed classes). */
export const link = (href: string, content: string, className?: string): Element => ({
  type: "element",
  tagName: "a",
  properties: className === undefined ? { href } : { href, className: [className] },
  children: [text(content)]
})

/** `createCodeLink`: a link whose content is `<code class="nohighlight">`. */
export const codeLink = (href: string, content: string, className: string): Element => ({
  type: "element",
  tagName: "a",
  properties: { href, className: [className] },
  children: [{ type: "element", tagName: "code", properties: { className: ["nohighlight"] }, children: [text(content)] }]
})

/** Runs `find` on the text, then on the text after each match, as the Go processors loop. */
export const splitAll = (value: string, find: (text: string) => Match | undefined): Split | undefined => {
  const first = find(value)
  if (first === undefined) return undefined
  const rest: Array<ElementContent> = [...first.nodes]
  let after = value.slice(first.end)
  while (after !== "") {
    const match = find(after)
    if (match === undefined) {
      rest.push(text(after))
      break
    }
    if (match.start > 0) rest.push(text(after.slice(0, match.start)))
    rest.push(...match.nodes)
    after = after.slice(match.end)
  }
  return { head: value.slice(0, first.start), rest }
}

/** Go's `base.ShortSha`. */
export const shortSha = (sha: string): string => (sha.length > 10 ? sha.slice(0, 10) : sha)
