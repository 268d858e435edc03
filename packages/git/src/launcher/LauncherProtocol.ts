/**
 * What the server and its git launcher (GitLauncherProcess.pl, or GitLauncherProcess.ts where perl
 * is not) say to each other over the launcher's stdin and stdout. Plain enough for a few lines of
 * Perl: decoding a start as JSON cost that program ~0.4 ms, more than its fork.
 *
 * Requests are fields, each ended by a NUL byte (which no argument or environment entry of a process
 * can hold):
 *   S id key command argc arg… envc name=value…   start
 *   K id signal                                    kill
 * Replies are lines:
 *   R                          ready
 *   S id pid                   started
 *   F id message               could not be started
 *   E id code signal length    exited ("-" for a code or a signal it has not), followed by `length`
 *                              bytes of git's stderr
 *
 * It imports nothing: the Node launcher, which imports it, stays small.
 */

export type Request =
  | {
    readonly _tag: "Start"
    readonly id: number
    /** What the connection opens with, naming the start to the server. */
    readonly key: string
    readonly command: string
    readonly args: ReadonlyArray<string>
    readonly env: Readonly<Record<string, string>>
  }
  | { readonly _tag: "Kill"; readonly id: number; readonly signal: string }

export type Reply =
  | { readonly _tag: "Ready" }
  | { readonly _tag: "Started"; readonly id: number; readonly pid: number }
  | { readonly _tag: "Failed"; readonly id: number; readonly message: string }
  | {
    readonly _tag: "Exited"
    readonly id: number
    readonly code: number | null
    readonly signal: string | null
    readonly stderr: Buffer
  }

/** Whether a signal's name as sent (`SIGTERM`) is one: both ends pass it on to Node as such. */
export const isSignal = (name: string | null): name is NodeJS.Signals => name !== null && /^SIG[A-Z0-9]+$/.test(name)

/** The request's bytes, or undefined when a field holds a NUL byte (as no process argument can). */
export const encodeRequest = (request: Request): string | undefined => {
  const fields = request._tag === "Kill"
    ? ["K", String(request.id), request.signal]
    : [
      "S",
      String(request.id),
      request.key,
      request.command,
      String(request.args.length),
      ...request.args,
      String(Object.keys(request.env).length),
      ...Object.entries(request.env).map(([name, value]) => `${name}=${value}`)
    ]
  return fields.some((field) => field.includes("\0")) ? undefined : `${fields.join("\0")}\0`
}

const NUL = 0
const NEWLINE = 0x0a

/** Reads requests off the launcher's input, chunk by chunk. */
export class RequestReader {
  #rest: Buffer = Buffer.alloc(0)
  readonly #fields: Array<string> = []

  push(chunk: Buffer): Array<Request> {
    let buffer = this.#rest.length === 0 ? chunk : Buffer.concat([this.#rest, chunk])
    for (let end = buffer.indexOf(NUL); end >= 0; end = buffer.indexOf(NUL)) {
      this.#fields.push(buffer.toString("utf8", 0, end))
      buffer = buffer.subarray(end + 1)
    }
    this.#rest = Buffer.from(buffer)
    const requests: Array<Request> = []
    const fields = this.#fields
    for (;;) {
      if (fields[0] === "K" && fields.length >= 3) {
        const [, id, signal] = fields.splice(0, 3)
        requests.push({ _tag: "Kill", id: Number(id), signal: signal ?? "" })
        continue
      }
      if (fields[0] === "S" && fields.length >= 6) {
        const argc = Number(fields[4])
        const envc = Number(fields[5 + argc])
        if (fields.length >= 6 + argc + envc) {
          const [, id, key, command] = fields.splice(0, 5)
          const args = fields.splice(0, argc)
          fields.shift()
          const env: Record<string, string> = {}
          for (const entry of fields.splice(0, envc)) {
            const equals = entry.indexOf("=")
            env[entry.slice(0, equals)] = entry.slice(equals + 1)
          }
          requests.push({ _tag: "Start", id: Number(id), key: key ?? "", command: command ?? "", args, env })
          continue
        }
      }
      if (fields.length > 0 && fields[0] !== "K" && fields[0] !== "S") throw new Error(`a request it does not know: ${fields[0]}`)
      return requests
    }
  }
}

export const encodeReply = (reply: Reply): Buffer => {
  switch (reply._tag) {
    case "Ready":
      return Buffer.from("R\n")
    case "Started":
      return Buffer.from(`S ${reply.id} ${reply.pid}\n`)
    case "Failed":
      return Buffer.from(`F ${reply.id} ${reply.message.replaceAll("\n", " ")}\n`)
    case "Exited":
      return Buffer.concat([
        Buffer.from(`E ${reply.id} ${reply.code ?? "-"} ${reply.signal ?? "-"} ${reply.stderr.length}\n`),
        reply.stderr
      ])
  }
}

/** Reads replies off the launcher's output, chunk by chunk. */
export class ReplyReader {
  #buffer: Buffer = Buffer.alloc(0)

  push(chunk: Buffer): Array<Reply> {
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk])
    const replies: Array<Reply> = []
    for (;;) {
      const end = this.#buffer.indexOf(NEWLINE)
      if (end < 0) break
      const line = this.#buffer.toString("utf8", 0, end)
      const [tag, id, ...rest] = line.split(" ")
      if (tag === "E") {
        const [code, signal, length] = rest
        const stderrEnd = end + 1 + Number(length)
        if (this.#buffer.length < stderrEnd) break
        replies.push({
          _tag: "Exited",
          id: Number(id),
          code: code === "-" ? null : Number(code),
          signal: signal === "-" || signal === undefined ? null : signal,
          stderr: Buffer.from(this.#buffer.subarray(end + 1, stderrEnd))
        })
        this.#buffer = this.#buffer.subarray(stderrEnd)
        continue
      }
      this.#buffer = this.#buffer.subarray(end + 1)
      if (tag === "R") replies.push({ _tag: "Ready" })
      else if (tag === "S") replies.push({ _tag: "Started", id: Number(id), pid: Number(rest[0]) })
      else if (tag === "F") replies.push({ _tag: "Failed", id: Number(id), message: rest.join(" ") })
    }
    return replies
  }
}
