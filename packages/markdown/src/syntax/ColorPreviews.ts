/**
 * Forgejo's colour previews (`transform_codespan.go`, `color_util.go`): an inline code span that
 * is exactly a CSS colour (`#rgb[a]`, `#rrggbb[aa]`, `rgb()`, `rgba()`, `hsl()`, `hsla()`) gets
 * `<span class="color-preview" style="background-color: COLOUR">` after its text.
 */
import type { Root } from "mdast"
import { forEachNode } from "./MdastWalk.ts"

const byte = "(([01]?[0-9]{1,2})|(2[0-4][0-9])|(25[0-5]))"
const channel = `((([0-9]{1,2}|100)%)|${byte})`
const colors: ReadonlyArray<RegExp> = [
  /^#([0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})$/,
  new RegExp(`^rgb\\(([ ]*${channel},){2}([ ]*${channel})\\)$`),
  new RegExp(`^rgba\\(([ ]*${channel},){3}[ ]*(1(\\.0)?|0|(0\\.[0-9]+))\\)$`),
  /^hsl\([ ]*([012]?[0-9]{1,2}|3[0-5][0-9]|360),[ ]*([0-9]{0,2}|100)%,[ ]*([0-9]{0,2}|100)%\)$/,
  /^hsla\(([ ]*[012]?[0-9]{1,2}|3[0-5][0-9]|360),[ ]*([0-9]{0,2}|100)%,[ ]*([0-9]{0,2}|100)%,[ ]*(1|1\.0|0|(0\.[0-9]+))\)$/
]

export const isColor = (value: string): boolean => colors.some((pattern) => pattern.test(value))

export const addColorPreviews = (tree: Root): void =>
  forEachNode(tree, (node) => {
    if (node.type !== "inlineCode" || !isColor(node.value.toLowerCase())) return
    node.data = {
      ...node.data,
      hChildren: [
        { type: "text", value: node.value },
        {
          type: "element",
          tagName: "span",
          properties: { className: ["color-preview"], style: `background-color: ${node.value}` },
          children: []
        }
      ]
    }
  })
