/**
 * The syntax Forgejo's goldmark enables: GitHub's tables, strikethrough, task lists and
 * footnotes, definition lists, and math. Bare URLs and e-mail addresses are not markdown syntax there (no linkify
 * extension): the post-processing pass links them, so remark-gfm's autolink literals stay out.
 */
import { defListFromMarkdown } from "mdast-util-definition-list"
import { gfmFootnoteFromMarkdown } from "mdast-util-gfm-footnote"
import { gfmStrikethroughFromMarkdown } from "mdast-util-gfm-strikethrough"
import { gfmTableFromMarkdown } from "mdast-util-gfm-table"
import { gfmTaskListItemFromMarkdown } from "mdast-util-gfm-task-list-item"
import { defList } from "micromark-extension-definition-list"
import { gfmFootnote } from "micromark-extension-gfm-footnote"
import { gfmStrikethrough } from "micromark-extension-gfm-strikethrough"
import { gfmTable } from "micromark-extension-gfm-table"
import { gfmTaskListItem } from "micromark-extension-gfm-task-list-item"
import type { Processor } from "unified"
import { forgejoMathFromMarkdown, forgejoMathSyntax } from "./Math.ts"

export function forgejoGfm(this: Processor): void {
  const data = this.data()
  data.micromarkExtensions = [...(data.micromarkExtensions ?? []), gfmTable(), gfmStrikethrough(), gfmTaskListItem(), gfmFootnote(), defList, forgejoMathSyntax]
  data.fromMarkdownExtensions = [
    ...(data.fromMarkdownExtensions ?? []),
    gfmTableFromMarkdown(),
    gfmStrikethroughFromMarkdown(),
    gfmTaskListItemFromMarkdown(),
    gfmFootnoteFromMarkdown(),
    defListFromMarkdown,
    forgejoMathFromMarkdown
  ]
}
