/**
 * Forgejo's alert blocks (`modules/markup/markdown/callout/`): a blockquote opening with
 * `[!NOTE]`, `[!TIP]`, `[!IMPORTANT]`, `[!WARNING]` or `[!CAUTION]` (any case), or with the legacy
 * `**Note**` / `**Warning**`, gets the classes `attention-header attention-KIND` and a title
 * paragraph `<p class="attention-title"><svg …octicon…></svg><strong class="attention-KIND">Kind</strong></p>`.
 */
import type { Blockquote, Emphasis, Heading, Paragraph, PhrasingContent, Root, Strong, Text } from "mdast"
import { forEachNode } from "./MdastWalk.ts"

/** Forgejo's octicons (public/assets/img/svg, 16px) for each kind, as its `svg.RenderHTML` spells their paths. */
const icons: Record<string, readonly [icon: string, path: string]> = {
  note: ["info", "M0 8a8 8 0 1 1 16 0A8 8 0 0 1 0 8m8-6.5a6.5 6.5 0 1 0 0 13 6.5 6.5 0 0 0 0-13M6.5 7.75A.75.75 0 0 1 7.25 7h1a.75.75 0 0 1 .75.75v2.75h.25a.75.75 0 0 1 0 1.5h-2a.75.75 0 0 1 0-1.5h.25v-2h-.25a.75.75 0 0 1-.75-.75M8 6a1 1 0 1 1 0-2 1 1 0 0 1 0 2"],
  tip: ["light-bulb", "M8 1.5c-2.363 0-4 1.69-4 3.75 0 .984.424 1.625.984 2.304l.214.253c.223.264.47.556.673.848.284.411.537.896.621 1.49a.75.75 0 0 1-1.484.211c-.04-.282-.163-.547-.37-.847a9 9 0 0 0-.542-.68q-.126-.149-.268-.32C3.201 7.75 2.5 6.766 2.5 5.25 2.5 2.31 4.863 0 8 0s5.5 2.31 5.5 5.25c0 1.516-.701 2.5-1.328 3.259q-.142.172-.268.319c-.207.245-.383.453-.541.681-.208.3-.33.565-.37.847a.751.751 0 0 1-1.485-.212c.084-.593.337-1.078.621-1.489.203-.292.45-.584.673-.848q.113-.133.213-.253c.561-.679.985-1.32.985-2.304 0-2.06-1.637-3.75-4-3.75M5.75 12h4.5a.75.75 0 0 1 0 1.5h-4.5a.75.75 0 0 1 0-1.5M6 15.25a.75.75 0 0 1 .75-.75h2.5a.75.75 0 0 1 0 1.5h-2.5a.75.75 0 0 1-.75-.75"],
  important: ["report", "M0 1.75C0 .784.784 0 1.75 0h12.5C15.216 0 16 .784 16 1.75v9.5A1.75 1.75 0 0 1 14.25 13H8.06l-2.573 2.573A1.458 1.458 0 0 1 3 14.543V13H1.75A1.75 1.75 0 0 1 0 11.25Zm1.75-.25a.25.25 0 0 0-.25.25v9.5c0 .138.112.25.25.25h2a.75.75 0 0 1 .75.75v2.19l2.72-2.72a.75.75 0 0 1 .53-.22h6.5a.25.25 0 0 0 .25-.25v-9.5a.25.25 0 0 0-.25-.25Zm7 2.25v2.5a.75.75 0 0 1-1.5 0v-2.5a.75.75 0 0 1 1.5 0M9 9a1 1 0 1 1-2 0 1 1 0 0 1 2 0"],
  warning: ["alert", "M6.457 1.047c.659-1.234 2.427-1.234 3.086 0l6.082 11.378A1.75 1.75 0 0 1 14.082 15H1.918a1.75 1.75 0 0 1-1.543-2.575Zm1.763.707a.25.25 0 0 0-.44 0L1.698 13.132a.25.25 0 0 0 .22.368h12.164a.25.25 0 0 0 .22-.368Zm.53 3.996v2.5a.75.75 0 0 1-1.5 0v-2.5a.75.75 0 0 1 1.5 0M9 11a1 1 0 1 1-2 0 1 1 0 0 1 2 0"],
  caution: ["stop", "M4.47.22A.75.75 0 0 1 5 0h6c.199 0 .389.079.53.22l4.25 4.25c.141.14.22.331.22.53v6a.75.75 0 0 1-.22.53l-4.25 4.25A.75.75 0 0 1 11 16H5a.75.75 0 0 1-.53-.22L.22 11.53A.75.75 0 0 1 0 11V5c0-.199.079-.389.22-.53Zm.84 1.28L1.5 5.31v5.38l3.81 3.81h5.38l3.81-3.81V5.31L10.69 1.5ZM8 4a.75.75 0 0 1 .75.75v3.5a.75.75 0 0 1-1.5 0v-3.5A.75.75 0 0 1 8 4m0 8a1 1 0 1 1 0-2 1 1 0 0 1 0 2"]
}

const kinds = new Set(Object.keys(icons))
/** goldmark splits `[!NOTE]` into the texts `[`, `!NOTE`, `]`; Forgejo trims one `!` and lower-cases. */
const marker = /^\[!?([A-Za-z]+)\]/
const legacyKinds = new Set(["Note", "Warning"])

/** `svg.RenderHTML("octicon-ICON", 16, "attention-icon attention-KIND")`, carried by an empty text node. */
const iconNode = (kind: string): Text => {
  const [name, path] = icons[kind] ?? ["info", ""]
  return {
    type: "text",
    value: "",
    data: {
      hName: "svg",
      hProperties: {
        viewBox: "0 0 16 16",
        className: ["attention-icon", `attention-${kind}`, "svg", `octicon-${name}`],
        width: "16",
        height: "16",
        ariaHidden: "true"
      },
      hChildren: [{ type: "element", tagName: "path", properties: { d: path }, children: [] }]
    }
  }
}

const titleParagraph = (kind: string, title: Strong | Emphasis): Paragraph => ({
  type: "paragraph",
  children: [iconNode(kind), title],
  data: { hProperties: { className: ["attention-title"] } }
})

const withClass = <T extends Strong | Emphasis>(node: T, kind: string): T => ({
  ...node,
  data: { ...node.data, hProperties: { ...node.data?.hProperties, className: [`attention-${kind}`] } }
})

const textOf = (node: PhrasingContent): string =>
  "value" in node ? node.value : "children" in node ? node.children.map(textOf).join("") : ""

/** `> [!KIND]`: the marker and the line break after it leave the first paragraph. */
const githubKind = (first: Paragraph | Heading): string | undefined => {
  const head = first.children[0]
  if (head?.type !== "text") return undefined
  const match = marker.exec(head.value)
  const kind = match?.[1]?.toLowerCase()
  if (match === null || kind === undefined || !kinds.has(kind)) return undefined
  const rest = head.value.slice(match[0].length)
  const remaining = rest.startsWith("\n") ? rest.slice(1) : rest
  first.children = remaining === "" ? first.children.slice(1) : [{ ...head, value: remaining }, ...first.children.slice(1)]
  return kind
}

const makeCallout = (quote: Blockquote, kind: string, title: Strong | Emphasis): void => {
  quote.data = { ...quote.data, hProperties: { ...quote.data?.hProperties, className: ["attention-header", `attention-${kind}`] } }
  quote.children = [titleParagraph(kind, title), ...quote.children]
}

/** `> **Note**` / `> **Warning**`: the emphasis moves into the title, with the rest of its line. */
const legacyCallout = (quote: Blockquote, first: Paragraph | Heading): boolean => {
  const head = first.children[0]
  if (head?.type !== "strong" && head?.type !== "emphasis") return false
  const label = textOf(head)
  if (!legacyKinds.has(label)) return false
  const kind = label.toLowerCase()
  const rest = first.children.slice(1)
  const next = rest[0]
  // goldmark drops the next text when it ends its line (it carries the soft line break).
  if (next?.type === "text" && next.value.includes("\n")) {
    const after = next.value.slice(next.value.indexOf("\n") + 1)
    rest.splice(0, 1, ...(after === "" ? [] : [{ ...next, value: after }]))
  }
  first.children = rest
  makeCallout(quote, kind, withClass(head, kind))
  return true
}

export const arrangeCallouts = (tree: Root): void =>
  forEachNode(tree, (node) => {
    if (node.type !== "blockquote") return
    const first = node.children[0]
    if (first?.type !== "paragraph" && first?.type !== "heading") return
    const kind = githubKind(first)
    if (kind !== undefined) {
      const title: Strong = { type: "strong", children: [{ type: "text", value: kind[0]?.toUpperCase() + kind.slice(1) }] }
      makeCallout(node, kind, withClass(title, kind))
      return
    }
    legacyCallout(node, first)
  })
