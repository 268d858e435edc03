/**
 * A protocol v2 `ls-refs` answer carried across a push, as ReceivePackAdvertisement.ts carries the
 * push's own advertisement: the fetch that follows a push then lists the refs without a git process.
 *
 * The answer is `HEAD` (when asked for), then the refs the request's `ref-prefix`es match in name
 * order, each `<id> <name>` with `symref-target:` (a symbolic ref, when `symrefs` is asked) and
 * `peeled:` (a tag, when `peel` is asked), then a flush. After a push, only the lines of the refs it
 * changed and of a `HEAD` that names one of them change. Carried only where that needs nothing but
 * the push's updates: branches (`refs/heads/`, which git lets name nothing but commits, so no
 * `peeled:`) that are not symbolic, a `HEAD` that names a branch before and after, and a config that
 * hides no refs. Anything else (a tag pushed, a first or last branch under `HEAD`) drops the answer, and
 * git is asked next time.
 */
import type { RefUpdate } from "@kiln/domain/git/RefUpdate"
import { DELIMITER, FLUSH, FLUSH_LINE, pktLine, pktLines } from "./PktLine.ts"
import { byRefName, objectId } from "./RefFiles.ts"

/** What a push changed, as its write section read it. */
export interface PushedRefs {
  readonly updates: ReadonlyArray<RefUpdate>
  /** `HEAD` as stored before and after (a push does not write it). */
  readonly head: string | undefined
  /** Whether the ref was symbolic before or after. */
  readonly isSymbolic: (ref: string) => boolean
  /** Whether the repository's config hides refs (`uploadpack.hideRefs`, `transfer.hideRefs`). */
  readonly hidesRefs: boolean
}

interface Request {
  readonly prefixes: ReadonlyArray<string>
  readonly symrefs: boolean
}

interface Line {
  /** An object id, or `unborn`. */
  readonly id: string
  readonly name: string
  /** ` symref-target:…`, ` peeled:…`, as git wrote them. */
  readonly attributes: string
}

const isZero = (id: string) => /^0+$/.test(id)

/** The arguments of an `ls-refs` request that decide its answer; undefined for one with others. */
const parseRequest = (request: Buffer): Request | undefined => {
  const lines = pktLines(request)
  const delimiter = lines?.indexOf(DELIMITER) ?? -1
  if (lines === undefined || delimiter < 0 || lines.at(-1) !== FLUSH) return undefined
  const prefixes: Array<string> = []
  let symrefs = false
  for (const line of lines.slice(delimiter + 1, -1)) {
    if (typeof line !== "string") return undefined
    const argument = line.endsWith("\n") ? line.slice(0, -1) : line
    if (argument.startsWith("ref-prefix ")) prefixes.push(argument.slice("ref-prefix ".length))
    else if (argument === "symrefs") symrefs = true
    else if (argument !== "peel" && argument !== "unborn") return undefined
  }
  return { prefixes, symrefs }
}

const render = (lines: ReadonlyArray<Line>): Buffer =>
  Buffer.from(`${lines.map((line) => pktLine(`${line.id} ${line.name}${line.attributes}\n`)).join("")}${FLUSH_LINE}`, "utf8")

const parseAnswer = (answer: Buffer): ReadonlyArray<Line> | undefined => {
  const lines = pktLines(answer)
  if (lines === undefined || lines.at(-1) !== FLUSH) return undefined
  const parsed: Array<Line> = []
  for (const line of lines.slice(0, -1)) {
    if (typeof line !== "string" || !line.endsWith("\n")) return undefined
    const [id = "", name = "", ...attributes] = line.slice(0, -1).split(" ")
    if (!(objectId.test(id) || id === "unborn") || name === "") return undefined
    parsed.push({ id, name, attributes: attributes.map((attribute) => ` ${attribute}`).join("") })
  }
  const refs = parsed[0]?.name === "HEAD" ? parsed.slice(1) : parsed
  const sorted = refs.every((line, index) => index === 0 || byRefName(refs[index - 1]?.name ?? "", line.name) < 0)
  return sorted && refs.every((line) => line.name.startsWith("refs/")) && render(parsed).equals(answer) ? parsed : undefined
}

/** Git's `ls-refs` answer to `request` after `pushed`, from its answer before; undefined when it cannot be told. */
export const advanced = (request: Buffer, answer: Buffer, pushed: PushedRefs): Buffer | undefined => {
  const asked = parseRequest(request)
  const lines = parseAnswer(answer)
  if (asked === undefined || lines === undefined || pushed.hidesRefs) return undefined
  // git writes nothing but commits under refs/heads/ ("trying to write non-commit object … to branch").
  if (!pushed.updates.every((update) => update.ref.startsWith("refs/heads/") && !pushed.isSymbolic(update.ref))) return undefined
  const matches = (name: string) => asked.prefixes.length === 0 || asked.prefixes.some((prefix) => name.startsWith(prefix))
  const headLine = lines[0]?.name === "HEAD" ? lines[0] : undefined
  const refs = new Map((headLine === undefined ? lines : lines.slice(1)).map((line) => [line.name, line]))
  for (const update of pushed.updates) {
    if (!matches(update.ref)) continue
    if (isZero(update.newId)) refs.delete(update.ref)
    else refs.set(update.ref, { id: update.newId, name: update.ref, attributes: "" })
  }
  let head = headLine
  const headTarget = pushed.head?.startsWith("ref: ") === true ? pushed.head.slice("ref: ".length).trim() : undefined
  const headMoved = pushed.updates.find((update) => update.ref === headTarget)
  if (headMoved !== undefined && matches("HEAD")) {
    // Born before and after, as git listed it: only its id changes (a commit: no `peeled:`).
    if (isZero(headMoved.oldId) || isZero(headMoved.newId) || headLine === undefined || headLine.id !== headMoved.oldId) return undefined
    const symrefTarget = asked.symrefs ? ` symref-target:${headTarget}` : ""
    if (headLine.attributes !== symrefTarget && !headLine.attributes.startsWith(`${symrefTarget} peeled:`)) return undefined
    head = { ...headLine, id: headMoved.newId, attributes: symrefTarget }
  }
  const names = [...refs.keys()].sort(byRefName)
  return render([...(head === undefined ? [] : [head]), ...names.flatMap((name) => refs.get(name) ?? [])])
}
