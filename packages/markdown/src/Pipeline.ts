/**
 * The renderer: Forgejo's YAML front matter split off, unified with remark-parse and Forgejo's GFM syntax, Forgejo's markdown transforms
 * (heading ids, link and image resolution, task lists, colour previews, alert blocks, footnotes, line breaks), remark-rehype with
 * raw HTML re-parsed as an HTML5 parser would, the post-processing pass for `gfm` and `comment`,
 * the sanitizer, and rehype-stringify. Synchronous and pure: the worker threads run it.
 */
import type { RenderRequest } from "@kiln/domain/markdown/RenderRequest"
import type { Element as HastElement, Root as HastRoot } from "hast"
import { raw } from "hast-util-raw"
import type { Root as MdastRoot } from "mdast"
import { defListHastHandlers } from "mdast-util-definition-list"
import rehypeStringify from "rehype-stringify"
import remarkParse from "remark-parse"
import remarkRehype from "remark-rehype"
import { unified } from "unified"
import { makeIdTable } from "./ForgejoSlug.ts"
import { postProcess } from "./postprocess/PostProcess.ts"
import { renderSettings, type RenderSettings } from "./RenderSettings.ts"
import { sanitize } from "./Sanitizer.ts"
import { arrangeCallouts } from "./syntax/Callouts.ts"
import { makeCodeHandler } from "./syntax/CodeBlocks.ts"
import { addColorPreviews } from "./syntax/ColorPreviews.ts"
import { protectFootnoteLabels, revealFootnoteLabels } from "./syntax/FootnoteLabels.ts"
import { arrangeFootnotes, footnoteReferenceHandler, takeBangsIntoFootnotes } from "./syntax/Footnotes.ts"
import { forgejoGfm } from "./syntax/ForgejoGfm.ts"
import { extractFrontMatter, type FrontMatter } from "./syntax/FrontMatter.ts"
import { hardenLineBreaks } from "./syntax/HardLineBreaks.ts"
import { assignHeadingIds } from "./syntax/HeadingIds.ts"
import { resolveLinks } from "./syntax/LinkResolution.ts"
import { inlineMathHandler, mathHandler } from "./syntax/Math.ts"
import { metaElement } from "./syntax/MetaTable.ts"
import { collectHeadings, tocElement } from "./syntax/TableOfContents.ts"
import { arrangeTaskListItems, markTaskListItems } from "./syntax/TaskListItems.ts"

/** Go's `util.NormalizeEOL`. */
const normalizeLineEndings = (text: string): string => text.replace(/\r\n?/g, "\n")

const hasRawNodes = (node: HastRoot | HastRoot["children"][number]): boolean =>
  node.type === "raw" || ("children" in node && node.children.some(hasRawNodes))

/** What goes before the document: the front matter's metadata and table of contents. */
type Preamble = Array<HastElement>

const markdownTransforms = (
  source: string,
  labelsProtected: boolean,
  front: FrontMatter | undefined,
  settings: RenderSettings,
  preamble: Preamble
) =>
(tree: MdastRoot): void => {
  if (labelsProtected) revealFootnoteLabels(tree)
  const ids = makeIdTable()
  assignHeadingIds(tree, source, ids)
  const config = front?.config
  if (config !== undefined) {
    const meta = metaElement(config)
    const toc = config.toc === "true" || config.toc === "main" ? tocElement(collectHeadings(tree)) : undefined
    preamble.push(...[meta, toc].filter((element) => element !== undefined))
  }
  resolveLinks(tree, settings)
  markTaskListItems(tree, source, front?.offset ?? 0)
  addColorPreviews(tree)
  arrangeCallouts(tree)
  takeBangsIntoFootnotes(tree, source)
  arrangeFootnotes(tree, ids)
  if (settings.kind !== "document") hardenLineBreaks(tree)
}

const htmlTransforms = (settings: RenderSettings, preamble: Preamble) => (tree: HastRoot): HastRoot => {
  // Raw HTML is parsed in place as Forgejo's post-processing re-parses its HTML.
  const parsed = hasRawNodes(tree) ? raw(tree) : tree
  const root: HastRoot = parsed.type === "root" ? parsed : { type: "root", children: [] }
  if (preamble.length > 0) root.children.unshift(...preamble)
  arrangeTaskListItems(root)
  if (settings.kind !== "raw") postProcess(root, settings)
  return sanitize(root)
}

/** Renders to sanitized HTML; `mentionable` are the `@names` that exist (see `mentionCandidates`). */
export const renderMarkdown = (request: RenderRequest, mentionable: ReadonlySet<string>): string => {
  if (request.text === "") return ""
  const text = normalizeLineEndings(request.text)
  const front = extractFrontMatter(text)
  const body = front?.body ?? text
  const protectedSource = protectFootnoteLabels(body)
  const source = protectedSource ?? body
  const settings = renderSettings(request, mentionable)
  const preamble: Preamble = []
  const processor = unified()
    .use(remarkParse)
    .use(forgejoGfm)
    .use(() => markdownTransforms(source, protectedSource !== undefined, front, settings, preamble))
    .use(remarkRehype, {
      allowDangerousHtml: true,
      handlers: {
        ...defListHastHandlers,
        code: makeCodeHandler(source),
        footnoteReference: footnoteReferenceHandler,
        forgejoInlineMath: inlineMathHandler,
        forgejoMath: mathHandler
      }
    })
    .use(() => htmlTransforms(settings, preamble))
    .use(rehypeStringify)
  const html = String(processor.processSync(source))
  return html === "" || html.endsWith("\n") ? html : `${html}\n`
}
