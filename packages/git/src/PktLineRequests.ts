/**
 * A protocol v2 client's requests read from its stream (an SSH channel) while they can be answered
 * from kept listings: the client's `ls-refs` commands, whole. Anything else (a `fetch`, another
 * command, a request too large to be kept, bytes that are not pkt-lines, input that ends inside a
 * request) is handed to git as it came: the bytes read so far, then the stream itself, so git sees
 * exactly what the client sent and answers or refuses it as it always does.
 */
import type { Readable } from "node:stream"
import { pktLength } from "./PktLine.ts"

/**
 * The most of an `ls-refs` request read before it is handed to git: RefListings keeps none larger
 * (a fetch's is a few hundred bytes, a prefix per refspec).
 */
const LARGEST_REQUEST_BYTES = 8 * 1024

const LS_REFS = Buffer.from("command=ls-refs")

/**
 * Bytes held from the client before its input is paused: a client that keeps sending while an
 * answer is made (or sends anything but requests) waits, as git's own input would make it wait,
 * instead of filling the server's memory.
 */
const HELD_BYTES = 64 * 1024

export type NextRequest =
  /** A whole `ls-refs` request, its flush included. */
  | { readonly kind: "ls-refs"; readonly bytes: Buffer }
  /**
   * For git: what was read and not yet answered, and whether the input has ended already (else the
   * rest is the stream's, which is the caller's again, paused).
   */
  | { readonly kind: "git"; readonly head: Buffer; readonly ended: boolean }
  /** The client is done: its input ended between requests, or it sent a flush alone (as git's serve loop ends). */
  | { readonly kind: "end" }
  /** The client went away, or sent nothing for the idle timeout. */
  | { readonly kind: "stopped"; readonly idle: boolean }

/**
 * What the bytes read so far hold: a whole `ls-refs` request, a flush alone ("end"), something for
 * git, or not enough to tell (undefined).
 */
const scan = (bytes: Buffer): { readonly kind: "ls-refs"; readonly length: number } | { readonly kind: "end" } | { readonly kind: "git" } | undefined => {
  if (bytes.length < 4) return undefined
  const first = pktLength(bytes, 0)
  if (first === 0) return { kind: "end" }
  if (first === undefined || first < 4) return { kind: "git" }
  if (bytes.length < Math.min(first, 4 + LS_REFS.length + 1)) return undefined
  const command = bytes.subarray(4, first)
  const isLsRefs = command.subarray(0, LS_REFS.length).equals(LS_REFS) &&
    (command.length === LS_REFS.length || (command.length === LS_REFS.length + 1 && command[LS_REFS.length] === 10))
  if (!isLsRefs) return { kind: "git" }
  let offset = first
  for (;;) {
    if (offset > LARGEST_REQUEST_BYTES) return { kind: "git" }
    if (bytes.length < offset + 4) return undefined
    const length = pktLength(bytes, offset)
    if (length === undefined || length === 2 || length === 3) return { kind: "git" }
    if (length === 0) return { kind: "ls-refs", length: offset + 4 }
    offset += length === 1 ? 4 : length
  }
}

export class PktLineRequests {
  readonly #input: Readable
  #buffered: Buffer = Buffer.alloc(0)
  #ended = false
  #wake: (() => void) | undefined

  readonly #onData = (chunk: Buffer) => {
    this.#buffered = this.#buffered.length === 0 ? chunk : Buffer.concat([this.#buffered, chunk])
    if (this.#buffered.length > HELD_BYTES) this.#input.pause()
    this.#wake?.()
  }
  readonly #onEnd = () => {
    this.#ended = true
    this.#wake?.()
  }

  constructor(input: Readable) {
    this.#input = input
    input.on("data", this.#onData)
    input.once("end", this.#onEnd)
    input.once("close", this.#onEnd)
    // A stream its owner paused (`kiln serv`'s socket, after its request line) flows only when told.
    input.resume()
  }

  /** The next request; waits for the client at most `idleMillis` (0: for ever) while `signal` holds. */
  async next(signal: AbortSignal, idleMillis: number): Promise<NextRequest> {
    for (;;) {
      if (signal.aborted) return this.#release({ kind: "stopped", idle: false })
      const found = scan(this.#buffered)
      if (found?.kind === "ls-refs") {
        const bytes = this.#buffered.subarray(0, found.length)
        this.#buffered = this.#buffered.subarray(found.length)
        return { kind: "ls-refs", bytes }
      }
      if (found?.kind === "end") return this.#release({ kind: "end" })
      if (found?.kind === "git" || (this.#ended && this.#buffered.length > 0)) return this.#release({ kind: "git", head: this.#buffered, ended: this.#ended })
      if (this.#ended) return this.#release({ kind: "end" })
      // More is needed: what was held has been answered.
      this.#input.resume()
      const idle = await new Promise<boolean>((resolve) => {
        const timer = idleMillis > 0 ? setTimeout(() => settle(true), idleMillis) : undefined
        const settle = (timedOut: boolean) => {
          if (timer !== undefined) clearTimeout(timer)
          signal.removeEventListener("abort", stop)
          this.#wake = undefined
          resolve(timedOut)
        }
        const stop = () => settle(false)
        signal.addEventListener("abort", stop, { once: true })
        this.#wake = () => settle(false)
      })
      if (idle) return this.#release({ kind: "stopped", idle: true })
    }
  }

  /** Stops reading: the stream is left paused with nothing of it consumed past what `next` returned. */
  #release<A extends NextRequest>(request: A): A {
    this.#input.off("data", this.#onData)
    this.#input.off("end", this.#onEnd)
    this.#input.off("close", this.#onEnd)
    this.#input.pause()
    this.#buffered = Buffer.alloc(0)
    return request
  }
}
