/**
 * `kiln dump`'s side of the control socket (ControlProtocol.ts): when a server runs on the data
 * directory's embedded database, it makes the dump and this process shows its progress.
 */
import { createConnection } from "node:net"
import { join } from "node:path"
import { createInterface } from "node:readline"
import { Effect, Option } from "effect"
import { attempt, BackupFailed } from "./BackupFailed.ts"
import { decodeReply, encodeLine, type Reply, SOCKET_NAME } from "./ControlProtocol.ts"
import type { DumpSummary } from "./Dump.ts"
import type { ProgressLine } from "./Progress.ts"

const errorCode = (error: unknown): string | undefined =>
  error instanceof Error && "code" in error && typeof error.code === "string" ? error.code : undefined

/** The server's answer lines, or none when no server listens on the data directory. */
const exchange = (dataDir: string, output: string, onLine: (line: string) => void): Promise<Option.Option<Array<string>>> =>
  new Promise((resolve, reject) => {
    const socket = createConnection(join(dataDir, SOCKET_NAME))
    const lines: Array<string> = []
    let connected = false
    socket.on("error", (error) => {
      const code = errorCode(error)
      if (!connected && (code === "ENOENT" || code === "ECONNREFUSED")) resolve(Option.none())
      else reject(error)
    })
    socket.once("connect", () => {
      connected = true
      // Read only once connected: a reader on a socket that never connects re-emits its error.
      const reader = createInterface({ input: socket })
      reader.on("line", (line) => {
        lines.push(line)
        onLine(line)
      })
      reader.on("error", reject)
      reader.once("close", () => resolve(Option.some(lines)))
      socket.write(encodeLine({ command: "dump", output }))
    })
  })

/** Asks the server on `dataDir` to dump to `output`; none when no server listens there. */
export const dumpThroughServer = (
  dataDir: string,
  output: string,
  progress: (estimate: number) => ProgressLine
): Effect.Effect<Option.Option<DumpSummary>, BackupFailed> =>
  Effect.gen(function*() {
    let line: ProgressLine = { update: () => {}, done: () => {} }
    const onLine = (text: string) => {
      const reply = Effect.runSync(Effect.option(decodeReply(text)))
      if (Option.isNone(reply)) return
      if (reply.value.type === "started") line = progress(reply.value.estimate)
      else if (reply.value.type === "progress") line.update(reply.value.items, reply.value.bytes)
    }
    const answer = yield* attempt("asking the running server", () => exchange(dataDir, output, onLine))
    line.done()
    if (Option.isNone(answer)) return Option.none()
    const last = answer.value.at(-1)
    const reply: Reply | undefined = last === undefined ? undefined : yield* decodeReply(last).pipe(Effect.orElseSucceed(() => undefined))
    if (reply?.type === "done") return Option.some(reply.summary)
    if (reply?.type === "failed") return yield* new BackupFailed({ message: reply.message })
    return yield* new BackupFailed({ message: "the server closed the control socket without finishing the dump" })
  })
