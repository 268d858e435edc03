/**
 * `kiln keys` and `kiln serv`: git over SSH through the system's sshd (Forgejo's `forgejo keys` and
 * `forgejo serv`). sshd_config:
 *
 *     AuthorizedKeysCommand /path/to/kiln keys -e git -u %u -t %t -k %k
 *     AuthorizedKeysCommandUser git
 *
 * `kiln keys` prints the key's authorized_keys line with a forced `kiln serv key-<id>`, which
 * serves SSH_ORIGINAL_COMMAND under the same rules and access decision as the built-in server. On
 * the embedded database both go through the running server (its SSH socket, ServProtocol.ts); on
 * DATABASE_URL they open the database themselves.
 */
import { createConnection } from "node:net"
import { join, resolve } from "node:path"
import { Console, Effect, Layer, Option } from "effect"
import { Argument, CliError, Command, Flag } from "effect/cli"
import * as Application from "../Application.ts"
import { KilnConfig } from "../config/KilnConfig.ts"
import * as KilnConfigLayer from "../config/KilnConfig.ts"
import * as Database from "../Database.ts"
import { authorizedKey, authorizedKeyLine, servCommandLine } from "../ssh/AuthorizedKeys.ts"
import * as GitSessions from "../ssh/GitSessions.ts"
import { FRAME_EXIT, FRAME_STDERR, FRAME_STDOUT, frameReader, type ServRequest, SSH_SOCKET_NAME } from "../ssh/ServProtocol.ts"
import { userFacing } from "./CommandFailure.ts"

const ApplicationLive = Application.layer.pipe(Layer.provideMerge(Database.layer))

/**
 * Sends `request` to the running server's SSH socket, relays standard input (for `serv`) and the
 * answer's frames; resolves with the exit status, or none when no server listens.
 */
const throughServer = (dataDir: string, request: ServRequest, relayInput: boolean, output: (payload: Buffer) => boolean = (payload) => process.stdout.write(payload)) =>
  new Promise<Option.Option<number>>((done) => {
    const socket = createConnection({ path: join(resolve(dataDir), SSH_SOCKET_NAME), allowHalfOpen: true })
    let connected = false
    let code = 1
    socket.once("error", (error: NodeJS.ErrnoException) => {
      if (!connected) return done(Option.none())
      process.stderr.write(`Kiln: ${error.message}\n`)
      done(Option.some(1))
    })
    socket.once("connect", () => {
      connected = true
      socket.write(`${JSON.stringify(request)}\n`)
      if (relayInput) process.stdin.pipe(socket)
      else socket.end()
    })
    // One wait for stdout to drain at a time: a chunk of the socket may hold many frames.
    let draining = false
    socket.on("data", frameReader((kind, payload) => {
      if (kind === FRAME_STDOUT && !output(payload)) {
        socket.pause()
        if (draining) return
        draining = true
        process.stdout.once("drain", () => {
          draining = false
          socket.resume()
        })
      } else if (kind === FRAME_STDERR) {
        process.stderr.write(payload)
      } else if (kind === FRAME_EXIT) {
        code = payload.readUInt8(0)
      }
    }))
    socket.once("close", () => {
      process.stdin.unpipe(socket)
      process.stdin.destroy()
      done(Option.some(code))
    })
  })

const noServer = (dataDir: string) =>
  new CliError.UserError({
    cause: undefined,
    userMessage: `Kiln: no server is running on ${resolve(dataDir)} (its SSH socket ${SSH_SOCKET_NAME} is missing)`
  })

const setExitCode = (code: number) => Effect.sync(() => (process.exitCode = code))

export const keysCommand = Command.make(
  "keys",
  {
    expected: Flag.String("expected").pipe(Flag.withAlias("e"), Flag.withDefault("git"), Flag.withDescription("The user sshd should ask for")),
    username: Flag.String("username").pipe(Flag.withAlias("u"), Flag.withDescription("The user sshd asks for (%u)")),
    type: Flag.String("type").pipe(Flag.withAlias("t"), Flag.withDescription("The key's type (%t)")),
    content: Flag.String("content").pipe(Flag.withAlias("k"), Flag.withDescription("The key, base64 (%k)"))
  },
  Effect.fnUntraced(function*(flags) {
    // Another user's keys are not Kiln's: nothing, so sshd goes on with its other sources.
    if (flags.username !== flags.expected) return
    const config = yield* KilnConfig
    const print = (found: { readonly keyId: number; readonly content: string }) =>
      Console.log(authorizedKeyLine(servCommandLine({ dataDir: config.dataDir, argv: process.argv, keyId: found.keyId }), found.content))
    if (Option.isNone(config.databaseUrl)) {
      const answer: Array<Buffer> = []
      const request = { command: "keys", type: flags.type, key: flags.content } as const
      const code = yield* Effect.promise(() => throughServer(config.dataDir, request, false, (payload) => answer.push(payload) > 0))
      if (Option.isNone(code)) return yield* noServer(config.dataDir)
      const text = Buffer.concat(answer).toString("utf8").trim()
      if (text !== "") yield* print(JSON.parse(text) as { keyId: number; content: string })
      return yield* setExitCode(code.value)
    }
    const found = yield* authorizedKey({ type: flags.type, key: flags.content }).pipe(Effect.provide(ApplicationLive))
    if (Option.isSome(found)) yield* print(found.value)
  }, Effect.provide(KilnConfigLayer.layer), userFacing("keys"))
).pipe(Command.withDescription("Print the authorized_keys line of a stored SSH key (sshd's AuthorizedKeysCommand)"))

export const servCommand = Command.make(
  "serv",
  { key: Argument.String("key").pipe(Argument.withDescription("key-<id>, as the authorized_keys line forces it")) },
  Effect.fnUntraced(function*(args) {
    const config = yield* KilnConfig
    const match = /^key-(\d+)$/.exec(args.key)
    if (match === null) {
      process.stderr.write("Kiln: Invalid key argument\n")
      return yield* setExitCode(1)
    }
    const keyId = Number(match[1])
    const originalCommand = process.env["SSH_ORIGINAL_COMMAND"] ?? ""
    const gitProtocol = process.env["GIT_PROTOCOL"]
    if (Option.isNone(config.databaseUrl)) {
      const request: ServRequest = { command: "serv", keyId, originalCommand, ...(gitProtocol === undefined ? {} : { gitProtocol }) }
      const code = yield* Effect.promise(() => throughServer(config.dataDir, request, true))
      if (Option.isNone(code)) return yield* noServer(config.dataDir)
      return yield* setExitCode(code.value)
    }
    const code = yield* Effect.gen(function*() {
      const sessions = yield* GitSessions.make
      const controller = new AbortController()
      return yield* Effect.promise(() =>
        sessions.serveKey(keyId, originalCommand, gitProtocol, {
          input: process.stdin,
          output: process.stdout,
          errors: process.stderr,
          signal: controller.signal
        })
      )
    }).pipe(Effect.provide(ApplicationLive))
    yield* setExitCode(code)
  }, Effect.provide(KilnConfigLayer.layer), userFacing("serv"))
).pipe(Command.withDescription("Serve SSH_ORIGINAL_COMMAND for a key (sshd's forced command from kiln keys)"))
