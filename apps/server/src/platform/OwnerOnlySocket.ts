/**
 * A Unix socket file in the data directory that only its owner may connect to (mode 0600): the
 * control socket (`kiln dump`) and the SSH socket (`kiln serv`) of a server on the embedded
 * database. It listens while its scope is open and its file is removed at the close.
 */
import { chmod, rm } from "node:fs/promises"
import { createServer, type Server, type ServerOpts, type Socket } from "node:net"
import { Effect } from "effect"
import type * as Scope from "effect/Scope"

/**
 * Listens on `path` for `serve`; when it cannot, `unavailable` is logged as a warning (what then
 * cannot reach this server) and the server runs on without it.
 */
export const listen = (
  path: string,
  serve: (socket: Socket) => void,
  unavailable: string,
  options: ServerOpts = {}
): Effect.Effect<void, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      // This process holds the data directory's lock: a socket file there is a crashed server's.
      await rm(path, { force: true })
      const server: Server = createServer(options, serve)
      const listening = await new Promise<boolean>((done) => {
        server.once("error", () => done(false))
        server.listen(path, () => done(true))
      })
      if (listening) await chmod(path, 0o600).catch(() => {})
      return { server, listening }
    }),
    ({ server, listening }) =>
      Effect.promise(async () => {
        if (listening) await new Promise<void>((done) => server.close(() => done()))
        await rm(path, { force: true })
      })
  ).pipe(Effect.flatMap(({ listening }) => listening ? Effect.void : Effect.logWarning(unavailable)))
