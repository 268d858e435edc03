/**
 * The v0/v1 ref advertisement of `git receive-pack` (what every push over smart HTTP asks first),
 * carried forward across a push instead of asked of git again.
 *
 * The advertisement is the repository's refs under `refs/` in name order (byte order, as git
 * iterates them), each `<id> <name>`, the first one followed by NUL and git's capabilities (a lone
 * `<zero id> capabilities^{}` when there is no ref), then a flush; protocol v1 puts `version 1`
 * first. After a push its refs are those before with the push's updates applied: the objects
 * of updated refs exist (receive-pack checked them), so git would show every one of them, and
 * nothing else moved inside the write section. The answer kept from before the push, with those
 * lines changed, is git's answer after it, and the next push's `info/refs` starts no git process.
 *
 * Only an advertisement this module can put back together byte for byte is carried forward, and
 * none that names more than refs: `.have` lines (alternates) and `shallow` lines depend on other
 * repositories and files; a `push-cert` nonce or a `session-id` is made anew for every request.
 */
import type { RefUpdate } from "@kiln/domain/git/RefUpdate"
import { FLUSH, FLUSH_LINE, pktLine, pktLines } from "./PktLine.ts"
import { byRefName, objectId } from "./RefFiles.ts"

interface Parsed {
  /** `version 1`'s pkt-line, or nothing (v0). */
  readonly version: string
  readonly capabilities: string
  /** Ref name → object id. */
  readonly refs: ReadonlyMap<string, string>
  /** The all-zero id of the repository's object format. */
  readonly zeroId: string
}

const VERSION_1 = pktLine("version 1\n")
const NO_REFS = "capabilities^{}"
/** Capabilities made anew for each request: an answer holding one is never given again. */
const perRequest = /(?:^| )(?:push-cert|session-id)=/

const render = (advertisement: Parsed): Buffer => {
  const names = [...advertisement.refs.keys()].sort(byRefName)
  const first = names[0]
  const lines = first === undefined
    ? [pktLine(`${advertisement.zeroId} ${NO_REFS}\0${advertisement.capabilities}\n`)]
    : names.map((name, index) =>
      pktLine(`${advertisement.refs.get(name) ?? ""} ${name}${index === 0 ? `\0${advertisement.capabilities}` : ""}\n`))
  return Buffer.from(`${advertisement.version}${lines.join("")}${FLUSH_LINE}`, "utf8")
}

const parse = (answer: Buffer): Parsed | undefined => {
  const lines = pktLines(answer)
  if (lines === undefined || lines.at(-1) !== FLUSH) return undefined
  const version = lines[0] === "version 1\n" ? VERSION_1 : ""
  const body = lines.slice(version === "" ? 0 : 1, -1)
  const [head, ...rest] = body
  if (typeof head !== "string") return undefined
  const nul = head.indexOf("\0")
  if (nul < 0 || !head.endsWith("\n")) return undefined
  const capabilities = head.slice(nul + 1, -1)
  if (perRequest.test(capabilities)) return undefined
  const entries = [head.slice(0, nul), ...rest.map((text) => (typeof text === "string" && text.endsWith("\n") ? text.slice(0, -1) : undefined))]
  const refs = new Map<string, string>()
  let zeroId: string | undefined
  for (const entry of entries) {
    const space = entry?.indexOf(" ") ?? -1
    const id = entry?.slice(0, space) ?? ""
    const name = entry?.slice(space + 1) ?? ""
    if (space > 0 && objectId.test(id) && name.startsWith("refs/")) refs.set(name, id)
    // The one line of an advertisement without refs.
    else if (entries.length === 1 && name === NO_REFS && /^0+$/.test(id)) zeroId = id
    // `.have` and `shallow` lines, or anything else, are not carried.
    else return undefined
  }
  const anyId = zeroId ?? refs.values().next().value
  if (anyId === undefined) return undefined
  const parsed: Parsed = { version, capabilities, refs, zeroId: "0".repeat(anyId.length) }
  // What cannot be put back together as it was is not understood well enough to change.
  return render(parsed).equals(answer) ? parsed : undefined
}

/** Whether `answer` is an advertisement that can be given again and carried across pushes. */
export const isReusable = (answer: Buffer): boolean => parse(answer) !== undefined

/**
 * git's advertisement after `updates` (a push's, in its write section) of the advertisement it gave
 * before; undefined when `answer` is not one this module carries forward.
 */
export const advanced = (answer: Buffer, updates: ReadonlyArray<RefUpdate>): Buffer | undefined => {
  const parsed = parse(answer)
  if (parsed === undefined) return undefined
  const refs = new Map(parsed.refs)
  for (const update of updates) {
    if (/^0+$/.test(update.newId)) refs.delete(update.ref)
    else if (objectId.test(update.newId)) refs.set(update.ref, update.newId)
    else return undefined
  }
  return render({ ...parsed, refs })
}
