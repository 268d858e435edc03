/**
 * Forgejo renders soft line breaks as `<br>` outside documents (its default
 * `EnableHardLineBreakInComments`): comments and the raw renderer.
 */
import type { PhrasingContent, Root } from "mdast"
import { forEachPhrasingParent } from "./MdastWalk.ts"

const lineEnding = /[ \t]*\n[ \t]*/

export const hardenLineBreaks = (tree: Root): void =>
  forEachPhrasingParent(tree, (parent) => {
    if (!parent.children.some((child) => child.type === "text" && child.value.includes("\n"))) return
    parent.children = parent.children.flatMap((child): Array<PhrasingContent> => {
      if (child.type !== "text" || !child.value.includes("\n")) return [child]
      return child.value.split(lineEnding).flatMap((line, i): Array<PhrasingContent> =>
        i === 0 ? [{ type: "text", value: line }] : [{ type: "break" }, { type: "text", value: line }]
      )
    })
  })
