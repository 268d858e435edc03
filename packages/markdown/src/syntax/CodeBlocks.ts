/**
 * Code blocks as Forgejo's highlighting wrapper writes them: a fenced block is
 * `<pre class="code-block"><code class="chroma language-LANG display">` (`text` without a
 * language, `is-loading` for mermaid and math); an indented block stays `<pre><code>`.
 * Forgejo's chroma token spans are not reproduced: the code is plain text.
 */
import type { Element } from "hast"
import type { Code } from "mdast"
import type { State } from "mdast-util-to-hast"

const isFenced = (node: Code, source: string): boolean => {
  const start = node.position?.start.offset
  if (start === undefined) return false
  const opening = /^[ \t]*([`~])/.exec(source.slice(start, start + 8))
  return opening !== null
}

export const makeCodeHandler = (source: string) => (state: State, node: Code): Element => {
  const text = node.value === "" ? "" : `${node.value}\n`
  const fenced = isFenced(node, source)
  const language = node.lang ?? "text"
  const code: Element = {
    type: "element",
    tagName: "code",
    properties: fenced ? { className: ["chroma", `language-${language}`, "display"] } : {},
    children: [{ type: "text", value: text }]
  }
  const preClass = language === "mermaid" || language === "math" ? ["code-block", "is-loading"] : ["code-block"]
  const pre: Element = { type: "element", tagName: "pre", properties: fenced ? { className: preClass } : {}, children: [code] }
  state.patch(node, pre)
  return pre
}
