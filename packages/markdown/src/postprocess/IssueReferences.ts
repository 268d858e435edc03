/**
 * Issue and pull references (Forgejo's `fullIssuePatternProcessor`, `issueIndexPatternProcessor`,
 * `commitCrossReferencePatternProcessor` and `modules/references`):
 * - a full issue/pull URL on this instance becomes `#N` (same repository) or `owner/repo#N`;
 * - `#N` / `!N` (not in documents, unless in a wiki) and `owner/repo#N` link to the issue or pull,
 *   and a closing or reopening keyword right before is marked `issue-keyword`;
 * - `owner/repo@sha` links to the commit.
 */
import type { ElementContent } from "hast"
import type { RepositoryContext } from "@kiln/domain/markdown/RenderRequest"
import { urlJoin } from "../UrlJoin.ts"
import { link, nonSpace, shortSha, space, splitAll, text, type TextProcessor } from "./TextProcessor.ts"

const escapeRegExp = (value: string): string => value.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")
const tail = `(?:${space}|$|\\)|\\]|[:;,.?!]${space}|[:;,.?!]$)`

export const fullIssueLinks = (rootUrl: string, repository: RepositoryContext | undefined): TextProcessor => {
  const pattern = new RegExp(
    escapeRegExp(rootUrl) +
      `([\\w_.-]+)\\/([\\w_.-]+)\\/(?:issues|pulls)\\/((?:\\w{1,10}-)?[1-9][0-9]*)(\\/[\\w_.-]+)?` +
      `(?:(#(?:issue|issuecomment)-\\d+)|(?:[?#](?:${nonSpace}+)?))?\\b`
  )
  return (value) =>
    value.includes(rootUrl)
      ? splitAll(value, (input) => {
        const match = pattern.exec(input)
        if (match === null) return undefined
        const [url, user = "", repo = "", num = "", subpath = "", comment = ""] = match
        let label = `#${num}${subpath}${comment === "" ? "" : " (comment)"}`
        if (user !== repository?.owner || repo !== repository.name) label = `${user}/${repo}${label}`
        return { start: match.index, end: match.index + url.length, nodes: [link(url, label, "ref-issue")] }
      })
      : undefined
}

const numericPattern = new RegExp(`(?:${space}|^|\\(|\\[|'|")([#!][0-9]+)(?:${space}|$|\\)|\\]|'|"|[:;,.?!]${space}|[:;,.?!]$)`)
const crossPattern = new RegExp(`(?:${space}|^|\\(|\\[)([0-9a-zA-Z_.-]+/[0-9a-zA-Z_.-]+[#!][0-9]+)${tail}`)
const validName = /^[a-z0-9_.-]+$/
const closeKeywords = /(?:[\t\n\f\r ]|^|\(|\[)(close|closes|closed|fix|fixes|fixed|resolve|resolves|resolved):? $/i
const reopenKeywords = /(?:[\t\n\f\r ]|^|\(|\[)(reopen|reopens|reopened):? $/i

interface Reference {
  readonly start: number
  readonly end: number
  readonly owner: string
  readonly name: string
  readonly issue: string
  readonly isPull: boolean
  readonly keyword: { readonly start: number; readonly end: number } | undefined
}

/** Go's `findActionKeywords`: a keyword directly before the reference. */
const keywordBefore = (content: string, start: number): Reference["keyword"] => {
  const before = content.slice(0, start)
  const match = closeKeywords.exec(before) ?? reopenKeywords.exec(before)
  const word = match?.[1]
  if (match === null || word === undefined) return undefined
  const at = match.index + match[0].length - 1 - (match[0].endsWith(": ") ? 1 : 0) - word.length
  return { start: at, end: at + word.length }
}

/** `references.FindRenderizableReferenceNumeric` with `getCrossReference`. */
const findReference = (content: string, crossLinkOnly: boolean): Reference | undefined => {
  const match = (crossLinkOnly ? null : numericPattern.exec(content)) ?? crossPattern.exec(content)
  const group = match?.[1]
  if (match === null || group === undefined) return undefined
  const start = match.index + match[0].indexOf(group)
  const end = start + group.length
  const separator = group.search(/[#!]/)
  const repo = group.slice(0, separator)
  const issue = group.slice(separator + 1)
  const isPull = group[separator] === "!"
  if (repo === "") return { start, end, owner: "", name: "", issue, isPull, keyword: keywordBefore(content, start) }
  const parts = repo.toLowerCase().split("/")
  const [owner = "", name = ""] = parts
  if (parts.length !== 2 || !validName.test(owner) || !validName.test(name)) return undefined
  return { start, end, owner, name, issue, isPull, keyword: keywordBefore(content, start) }
}

export const issueReferences = (
  rootUrl: string,
  repository: RepositoryContext | undefined,
  crossLinkOnly: boolean
): TextProcessor => (value) =>
  /[#!]/.test(value)
    ? splitAll(value, (input) => {
      const reference = findReference(input, crossLinkOnly)
      if (reference === undefined) return undefined
      const path = reference.isPull ? "pulls" : "issues"
      const href = reference.owner === ""
        ? urlJoin(rootUrl, repository?.owner ?? "", repository?.name ?? "", path, reference.issue)
        : urlJoin(rootUrl, reference.owner, reference.name, path, reference.issue)
      const anchor = link(href, input.slice(reference.start, reference.end), "ref-issue")
      const keyword = reference.keyword
      if (keyword === undefined) return { start: reference.start, end: reference.end, nodes: [anchor] }
      const nodes: Array<ElementContent> = [
        { type: "element", tagName: "span", properties: { className: ["issue-keyword"] }, children: [text(input.slice(keyword.start, keyword.end))] },
        text(input.slice(keyword.end, reference.start)),
        anchor
      ]
      return { start: keyword.start, end: reference.end, nodes }
    })
    : undefined

const commitPattern = new RegExp(`(?:${space}|^|\\(|\\[)([0-9a-zA-Z_.-]+)/([0-9a-zA-Z_.-]+)@([0-9a-f]{7,64})${tail}`)

export const commitCrossReferences = (rootUrl: string): TextProcessor => (value) =>
  value.includes("@")
    ? splitAll(value, (input) => {
      const match = commitPattern.exec(input)
      if (match === null) return undefined
      const [whole, owner = "", name = "", sha = ""] = match
      const start = match.index + whole.indexOf(owner)
      const end = start + owner.length + 1 + name.length + 1 + sha.length
      const href = urlJoin(rootUrl, owner, name, "commit", sha)
      return { start, end, nodes: [link(href, `${owner}/${name}@${shortSha(sha)}`, "commit")] }
    })
    : undefined
