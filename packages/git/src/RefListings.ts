/**
 * The ref listings of `git upload-pack` (protocol v2's `ls-refs` answer, the v0/v1 advertisement)
 * and `git receive-pack` (its advertisement), remembered per repository while its refs stay as they
 * were.
 *
 * Every fetch and clone starts with one, and most fetches (CI polling, a mirror checking for news)
 * end there: nothing moved. A listing depends only on the request, the repository's refs and
 * config (RefFiles.refState) and the objects the refs name, whose ids fix them for good. So while
 * the state read now is the one an earlier listing was made under, that listing is git's answer
 * now, and no git process is started: each one costs milliseconds of CPU to create (more than
 * reading the refs) on top of git's own work.
 *
 * An answer is kept only when the state read before git ran is the state read after it: a push that
 * landed meanwhile leaves nothing behind that could be served later.
 *
 * A repository without refs (a new one, before its first push) depends on nothing but that state:
 * its listings are those of any other such repository in the same state (the same config and
 * `HEAD`), as long as neither borrows objects or is shallow (a push's advertisement names the
 * alternates' refs as `.have` and the shallow commits). They are kept across repositories too, so
 * the first push to a new repository starts no git process for its advertisement.
 */
import { existsSync } from "node:fs"
import { join } from "node:path"
import { readRefSnapshot, refState } from "./RefFiles.ts"

/**
 * Bytes kept across repositories, each answer with its request, key and state; the least recently
 * used go first. Requests count too: they are the client's, and a client choosing a new one per
 * request otherwise filled memory with them under a budget their answers never reached.
 */
const BUDGET_BYTES = 16 * 1024 * 1024
/** A repository with so many refs that its answer is larger is not remembered (it would crowd out the rest). */
const LARGEST_ANSWER_BYTES = 1024 * 1024
/**
 * A request this large is answered but not remembered: git's `ls-refs` of a fetch is a few hundred
 * bytes, a prefix per refspec; a larger one is not a request that comes back.
 */
const LARGEST_REQUEST_BYTES = 8 * 1024
/** What an entry costs beyond its bytes: the map entries, the entry object, the buffers' headers. */
const ENTRY_OVERHEAD_BYTES = 256
/**
 * Listings of repositories without refs kept across repositories: one per config, `HEAD`, protocol
 * and request in use, a handful in practice. The oldest go first.
 */
const MOST_SHARED_ANSWERS = 64

/**
 * Whether a repository's listings name its refs alone: with alternates a receive-pack advertisement
 * also names their objects (`.have`), and a shallow repository's its grafts, which change on their own.
 */
export const namesOwnRefsAlone = (path: string): boolean =>
  !existsSync(join(path, "objects", "info", "alternates")) && !existsSync(join(path, "shallow"))

/** What git answered, and whether it exited as it should (only then is the answer kept). */
export interface GitAnswer {
  readonly answer: Buffer
  readonly complete: boolean
}

interface Answer {
  readonly path: string
  readonly request: Buffer
  readonly state: string
  readonly answer: Buffer
}

const keyOf = (path: string, protocol: string, request: Buffer): string => `${path}\0${protocol}\0${request.toString("latin1")}`

/** The memory an entry holds under `key`: a string's characters may take two bytes each. */
const costOf = (key: string, entry: Answer): number =>
  ENTRY_OVERHEAD_BYTES + 2 * key.length + entry.request.length + entry.answer.length + 2 * entry.state.length

export class RefListings {
  readonly #answers = new Map<string, Answer>()
  /** Answers for repositories without refs, by protocol, request and state (no path). */
  readonly #refless = new Map<string, Buffer>()
  /** The keys of the answers kept per repository: a push advances its own, not a scan of all. */
  readonly #keysByPath = new Map<string, Set<string>>()
  #bytes = 0

  /** How many answers are kept. */
  get size(): number {
    return this.#answers.size
  }

  /**
   * The answer to `request` (a whole `command=ls-refs` request body, or ADVERTISEMENT) for the
   * repository at `path`: remembered when the refs are as they were when it was made, else `ask`'s
   * (git's), kept when git succeeded (`complete`) and no ref moved while it ran.
   */
  async answer(path: string, protocol: string, request: Buffer, ask: () => Promise<GitAnswer>): Promise<Buffer> {
    const snapshot = await readRefSnapshot(path).catch(() => undefined)
    if (snapshot === undefined || request.length > LARGEST_REQUEST_BYTES) return (await ask()).answer
    const before = snapshot.state
    const key = keyOf(path, protocol, request)
    const known = this.#answers.get(key)
    if (known !== undefined && known.state === before) {
      // Most recently used last.
      this.#answers.delete(key)
      this.#answers.set(key, known)
      return known.answer
    }
    const reflessKey = snapshot.refs.size === 0 && namesOwnRefsAlone(path) ? `${protocol}\0${before}\0${request.toString("latin1")}` : undefined
    const shared = reflessKey === undefined ? undefined : this.#refless.get(reflessKey)
    if (shared !== undefined) {
      this.#remember(key, { path, request, state: before, answer: shared })
      return shared
    }
    const { answer, complete } = await ask()
    if (!complete || answer.length > LARGEST_ANSWER_BYTES) return answer
    const after = await refState(path).catch(() => undefined)
    if (after !== before) return answer
    this.#remember(key, { path, request, state: before, answer })
    if (reflessKey !== undefined) this.#rememberRefless(reflessKey, answer)
    return answer
  }

  /**
   * Moves the answers kept for `path` under the refs state `before` to the state `after`, as
   * `change` turns each into git's answer there (undefined: it cannot, and the answer is dropped).
   * For changes whose effect on an answer is known without git: a push, in its write section.
   */
  advance(
    path: string,
    before: string,
    after: string,
    change: (listing: { readonly request: Buffer; readonly answer: Buffer }) => Buffer | undefined
  ): void {
    for (const key of [...this.#keysByPath.get(path) ?? []]) {
      const entry = this.#answers.get(key)
      if (entry === undefined || entry.state !== before) continue
      const changed = change(entry)
      if (changed === undefined || changed.length > LARGEST_ANSWER_BYTES) this.#forget(key)
      else this.#remember(key, { ...entry, state: after, answer: changed })
    }
  }

  #remember(key: string, entry: Answer): void {
    this.#forget(key)
    this.#answers.set(key, entry)
    const keys = this.#keysByPath.get(entry.path)
    if (keys === undefined) this.#keysByPath.set(entry.path, new Set([key]))
    else keys.add(key)
    this.#bytes += costOf(key, entry)
    for (const oldest of this.#answers.keys()) {
      if (this.#bytes <= BUDGET_BYTES) break
      this.#forget(oldest)
    }
  }

  #rememberRefless(key: string, answer: Buffer): void {
    this.#refless.delete(key)
    this.#refless.set(key, answer)
    for (const oldest of this.#refless.keys()) {
      if (this.#refless.size <= MOST_SHARED_ANSWERS) break
      this.#refless.delete(oldest)
    }
  }

  #forget(key: string): void {
    const entry = this.#answers.get(key)
    if (entry === undefined) return
    this.#answers.delete(key)
    const keys = this.#keysByPath.get(entry.path)
    keys?.delete(key)
    if (keys?.size === 0) this.#keysByPath.delete(entry.path)
    this.#bytes -= costOf(key, entry)
  }
}

/** What stands for the request of a v0/v1 ref advertisement (`info/refs`), which has no body. */
export const ADVERTISEMENT = Buffer.from("--advertise-refs", "latin1")

/** The same for `git receive-pack`'s advertisement (a push's `info/refs`). */
export const RECEIVE_ADVERTISEMENT = Buffer.from("receive-pack --advertise-refs", "latin1")

/** `command=ls-refs` as the first pkt-line of a protocol v2 request. */
const LS_REFS = Buffer.from("0014command=ls-refs\n", "latin1")

/** Whether a protocol v2 request body is an `ls-refs` command. */
export const isLsRefsRequest = (body: Buffer): boolean => body.subarray(0, LS_REFS.length).equals(LS_REFS)
