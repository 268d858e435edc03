/**
 * The server's side of the control socket (ControlProtocol.ts), listening while the server runs on
 * the embedded database: `kiln dump` in another process cannot open that database, so this process
 * dumps with its own connection. The socket lives in the data directory, readable by its owner only;
 * whoever can reach it can read the database files anyway. A server on DATABASE_URL does not listen:
 * the command opens the database itself.
 */
import type { Socket } from "node:net"
import { join, resolve } from "node:path"
import { createInterface } from "node:readline"
import { Effect, Layer, Option } from "effect"
import type { SqlClient } from "effect/sql"
import { generatedKeyPath } from "@kiln/openpgp"
import { KilnConfig } from "../config/KilnConfig.ts"
import * as OwnerOnlySocket from "../platform/OwnerOnlySocket.ts"
import { decodeRequest, encodeLine, SOCKET_NAME } from "./ControlProtocol.ts"
import { dump } from "./Dump.ts"

const serve = (socket: Socket, run: <A, E>(effect: Effect.Effect<A, E, SqlClient.SqlClient>) => Promise<A>, dataDir: string, signingKey: Option.Option<string>) => {
  const lines = createInterface({ input: socket })
  lines.once("line", (line) => {
    lines.close()
    const send = (value: unknown) => {
      if (!socket.destroyed) socket.write(encodeLine(value))
    }
    run(Effect.gen(function*() {
      const request = yield* decodeRequest(line)
      return yield* dump({
        output: request.output,
        dataDir,
        signingKey,
        progress: (estimate) => {
          send({ type: "started", estimate })
          return { update: (items, bytes) => send({ type: "progress", items, bytes }), done: () => {} }
        }
      })
    })).then(
      (summary) => socket.end(encodeLine({ type: "done", summary })),
      (error: unknown) => socket.end(encodeLine({ type: "failed", message: error instanceof Error ? error.message : String(error) }))
    )
  })
  socket.on("error", () => socket.destroy())
}

export const layer = Layer.effectDiscard(Effect.gen(function*() {
  const config = yield* KilnConfig
  if (Option.isSome(config.databaseUrl)) return
  const dataDir = resolve(config.dataDir)
  const path = join(dataDir, SOCKET_NAME)
  const signingKey = config.signingKey === "generate" ? Option.some(generatedKeyPath(dataDir)) : Option.none()
  const context = yield* Effect.context<SqlClient.SqlClient>()
  const run = <A, E>(effect: Effect.Effect<A, E, SqlClient.SqlClient>) =>
    Effect.runPromise(effect.pipe(Effect.provideContext(context)))
  yield* OwnerOnlySocket.listen(
    path,
    (socket) => serve(socket, run, dataDir, signingKey),
    `no control socket at ${path}: kiln dump cannot reach this server`
  )
}))
