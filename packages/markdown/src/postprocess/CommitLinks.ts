/**
 * Commit and compare URLs on any host are shortened (Forgejo's `fullHashPatternProcessor` and
 * `comparePatternProcessor`): `<a href="URL"><code>65f1bf27bc/path (L2)</code></a>`.
 * The patterns only ever match inside one whitespace-free run, so they run on such runs, which
 * keeps JavaScript's backtracking on `(?:\S+/){3,4}` bounded.
 */
import { codeLink, nonSpace, shortSha, splitAll, type TextProcessor } from "./TextProcessor.ts"

const anyHashPattern = new RegExp(
  `https?://(?:(?:${nonSpace}+/){3,4}(?:commit|tree|blob)/)([0-9a-f]{7,64})(/[-+~_%.a-zA-Z0-9/]+)?(\\?[-+~_%.a-zA-Z0-9=&]+)?(#[-+~_%.a-zA-Z0-9]+)?`
)
const comparePattern = new RegExp(
  `https?://(?:${nonSpace}+/){4,5}([0-9a-f]{7,64})(\\.\\.\\.?)([0-9a-f]{7,64})?(#[-+~_%.a-zA-Z0-9]+)?`
)
const longestRun = 4096

/** The first match of `pattern` in `text`, looking only at whitespace-free runs that pass `hint`. */
const execInRuns = (pattern: RegExp, hint: RegExp, text: string): RegExpExecArray | undefined => {
  for (const run of text.matchAll(/[^\t\n\f\r ]+/g)) {
    const value = run[0]
    if (value.length > longestRun || !hint.test(value)) continue
    const match = pattern.exec(value)
    if (match !== null) {
      match.index += run.index
      return match
    }
  }
  return undefined
}

const hashHint = /:\/\/.*\/(?:commit|tree|blob)\/[0-9a-f]{7}/
const compareHint = /:\/\/.*[0-9a-f]{7}\.\./

export const commitUrls: TextProcessor = (value) =>
  value.includes("://")
    ? splitAll(value, (text) => {
      const match = execInRuns(anyHashPattern, hashHint, text)
      if (match === undefined) return undefined
      let [url, sha = "", subpath = "", , hash = ""] = match
      let end = match.index + url.length
      hash = hash.slice(1)
      // A trailing `.` most likely ends the sentence.
      if (url.endsWith(".")) {
        end--
        url = url.slice(0, -1)
        if (hash !== "") hash = hash.slice(0, -1)
        else if (subpath !== "") subpath = subpath.slice(0, -1)
      }
      const label = shortSha(sha) + subpath + (hash === "" ? "" : ` (${hash})`)
      return { start: match.index, end, nodes: [codeLink(url, label, "commit")] }
    })
    : undefined

export const compareUrls: TextProcessor = (value) =>
  value.includes("://")
    ? splitAll(value, (text) => {
      const match = execInRuns(comparePattern, compareHint, text)
      // Forgejo stops at a match without the second commit.
      if (match === undefined || match[3] === undefined) return undefined
      let [url, first = "", dots = "", second = "", hash = ""] = match
      let end = match.index + url.length
      hash = hash.slice(1)
      second = shortSha(second)
      if (url.endsWith(".")) {
        end--
        url = url.slice(0, -1)
        if (hash !== "") hash = hash.slice(0, -1)
        else if (second !== "") second = second.slice(0, -1)
      }
      const label = shortSha(first) + dots + second + (hash === "" ? "" : ` (${hash})`)
      return { start: match.index, end, nodes: [codeLink(url, label, "compare")] }
    })
    : undefined
