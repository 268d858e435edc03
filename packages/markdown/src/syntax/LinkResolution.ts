/**
 * Forgejo's link and image transforms (`transform_link.go`, `transform_image.go`):
 * relative link destinations join the base (its wiki under `Wiki`), `#anchor` becomes
 * `#user-content-anchor`, relative images join the media base, and an image that is not
 * already the content of a link is wrapped in a link to itself opening in a new tab.
 * Reference-style links and images are resolved first, as goldmark does.
 */
import type { Definition, Image, Link, PhrasingContent, Root } from "mdast"
import { mediaLink, type RenderSettings, wikiLink } from "../RenderSettings.ts"
import { isLink, urlJoin } from "../UrlJoin.ts"
import { forEachNode, forEachPhrasingParent } from "./MdastWalk.ts"

const collectDefinitions = (tree: Root): ReadonlyMap<string, Definition> => {
  const definitions = new Map<string, Definition>()
  forEachNode(tree, (node) => {
    if (node.type === "definition" && !definitions.has(node.identifier)) definitions.set(node.identifier, node)
  })
  return definitions
}

export const resolveLinkUrl = (url: string, settings: RenderSettings): string => {
  let link = url
  if (link !== "" && !isLink(link) && !link.startsWith("#") && !link.startsWith("mailto:")) {
    link = urlJoin(settings.wiki ? wikiLink(settings) : settings.base, link)
  }
  return link.startsWith("#") ? `#user-content-${link.slice(1)}` : link
}

export const resolveImageUrl = (url: string, settings: RenderSettings): string =>
  url !== "" && !isLink(url) ? urlJoin(mediaLink(settings), url.replace(/^\/+/, "")) : url

/** The link goldmark puts around a bare image: same destination and title, `target="_blank"`. */
const wrapImage = (image: Image): Link => ({
  type: "link",
  url: image.url,
  title: image.title ?? null,
  children: [image],
  data: { hProperties: { target: "_blank" } }
})

export const resolveLinks = (tree: Root, settings: RenderSettings): void => {
  const definitions = collectDefinitions(tree)
  const resolved = new WeakSet<object>()
  forEachPhrasingParent(tree, (parent) => {
    parent.children = parent.children.map((child): PhrasingContent => {
      let node: PhrasingContent = child
      if (node.type === "linkReference") {
        const definition = definitions.get(node.identifier)
        if (definition !== undefined) {
          node = { type: "link", url: definition.url, title: definition.title ?? null, children: node.children }
        }
      } else if (node.type === "imageReference") {
        const definition = definitions.get(node.identifier)
        if (definition !== undefined) {
          node = { type: "image", url: definition.url, title: definition.title ?? null, alt: node.alt ?? null }
        }
      }
      if (resolved.has(node)) return node
      if (node.type === "link") {
        node.url = resolveLinkUrl(node.url, settings)
        resolved.add(node)
      } else if (node.type === "image") {
        node.url = resolveImageUrl(node.url, settings)
        resolved.add(node)
        if (parent.type !== "link") {
          const wrapper = wrapImage(node)
          resolved.add(wrapper)
          return wrapper
        }
      }
      return node
    })
  })
}
