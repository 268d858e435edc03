/**
 * The client of a PostgreSQL server (ServerClient.ts) over TLS, as a managed database requires
 * (`sslmode=require`): its shared pool writes through a socket of Kiln's (CoalescingSocket.ts), which
 * the driver then hands to TLS. No test server here speaks TLS, so a front does: it answers the
 * client's SSLRequest, ends TLS with a certificate of this folder's fixtures, and passes the plain
 * protocol on to the real server (KILN_TEST_DATABASE_URL). The client checks that certificate
 * against its own copy, as an operator's CA bundle would.
 */
import * as Fs from "node:fs"
import * as Net from "node:net"
import * as Tls from "node:tls"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import type * as Scope from "effect/Scope"
import { TestClock } from "effect/testing"
import * as ConnectionUrl from "../src/ConnectionUrl.ts"
import * as ServerClient from "../src/ServerClient.ts"
import * as TestDatabase from "../src/testing/TestDatabase.ts"

const serverUrl = process.env["KILN_TEST_DATABASE_URL"]

const fixture = (name: string) => Fs.readFileSync(new URL(`./fixtures/tls/${name}`, import.meta.url))
const certificate = fixture("cert.pem")

/** The protocol's SSLRequest: length 8, then the code 1234.5679. */
const SSL_REQUEST = Buffer.from([0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f])

interface TlsFront {
  readonly port: number
  /** Connections that completed a TLS handshake. */
  readonly secured: () => number
}

/** A TLS-ending front of the server at `upstream`, closed with the scope. */
const tlsFront = (upstream: ConnectionUrl.SocketTarget): Effect.Effect<TlsFront, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.promise(() => {
      const context = Tls.createSecureContext({ key: fixture("key.pem"), cert: certificate })
      const sockets = new Set<Net.Socket>()
      let secured = 0
      const server = Net.createServer((client) => {
        sockets.add(client)
        client.once("close", () => sockets.delete(client))
        client.once("data", (request: Buffer) => {
          if (!request.equals(SSL_REQUEST)) return client.destroy()
          // Paused, so nothing the client sends after the answer is read before TLS takes the socket.
          client.pause()
          client.write("S", () => {
            const secure = new Tls.TLSSocket(client, { isServer: true, secureContext: context })
            secure.once("secure", () => {
              secured++
              const server = upstream._tag === "Unix"
                ? Net.connect({ path: upstream.path })
                : Net.connect({ host: upstream.host, port: upstream.port })
              sockets.add(server)
              secure.pipe(server).on("error", () => secure.destroy())
              server.pipe(secure).on("error", () => server.destroy())
              server.once("close", () => secure.destroy())
              secure.once("close", () => server.destroy())
            })
            secure.on("error", () => client.destroy())
          })
        })
      })
      return new Promise<{ readonly server: Net.Server; readonly sockets: Set<Net.Socket>; readonly front: TlsFront }>((resolve) =>
        server.listen(0, "127.0.0.1", () => {
          const address = server.address()
          const port = typeof address === "object" && address !== null ? address.port : 0
          resolve({ server, sockets, front: { port, secured: () => secured } })
        })
      )
    }),
    ({ server, sockets }) =>
      Effect.promise(() => {
        for (const socket of sockets) socket.destroy()
        return new Promise<void>((resolve) => server.close(() => resolve()))
      })
  ).pipe(Effect.map(({ front }) => front))

/** A fresh database of the test server behind a TLS front, and its URL through the front (`sslmode=require`). */
const frontedDatabase = Effect.gen(function*() {
  const database = yield* TestDatabase.serverDatabase(Redacted.make(serverUrl ?? ""))
  const upstream = ConnectionUrl.socketTarget(database)
  if (upstream === undefined) return yield* Effect.die(new Error("the test server's URL names no socket"))
  const front = yield* tlsFront(upstream)
  const url = new URL(Redacted.value(database))
  url.hostname = "127.0.0.1"
  url.port = String(front.port)
  url.searchParams.delete("host")
  url.searchParams.set("sslmode", "require")
  return { front, url: Redacted.make(url.toString()) }
})

describe.skipIf(serverUrl === undefined)("ServerClient over TLS", () => {
  it.effect("statements of both pools run over TLS; those of separate callbacks of one turn each get their own answer", () =>
    TestClock.withLive(Effect.scoped(Effect.gen(function*() {
      const { front, url } = yield* frontedDatabase
      assert.isDefined(ConnectionUrl.socketTarget(url), "the shared pool writes through Kiln's socket")
      const sql = yield* ServerClient.make(
        { url, ...ConnectionUrl.defaultNames(url), ssl: { ca: certificate } },
        { shared: 2, own: 2 }
      ).pipe(Effect.provide(Reactivity.layer))

      // Each from its own timer callback, as requests read in one poll: their writes are corked together.
      const answers = yield* Effect.promise(() =>
        Promise.all(Array.from({ length: 40 }, (_, i) =>
          new Promise<unknown>((resolve, reject) =>
            setTimeout(() => Effect.runPromise(sql<{ readonly n: number }>`SELECT ${i}::int AS n`).then((rows) => resolve(rows[0]?.n), reject), 0)
          )))
      )
      assert.deepStrictEqual(answers, Array.from({ length: 40 }, (_, i) => i))
      const sharedSessions = front.secured()
      assert.isAtLeast(sharedSessions, 1)

      // A transaction takes a connection of the other pool: through TLS as well.
      yield* sql`CREATE TABLE t (id int PRIMARY KEY)`
      yield* sql.withTransaction(Effect.all([sql`INSERT INTO t VALUES (1)`, sql`INSERT INTO t VALUES (2)`]))
      assert.deepStrictEqual(yield* sql<{ readonly n: number }>`SELECT count(*)::int AS n FROM t`, [{ n: 2 }])
      assert.isAbove(front.secured(), sharedSessions)
    }))))

  it.effect("a server certificate the client does not trust fails the connection", () =>
    TestClock.withLive(Effect.scoped(Effect.gen(function*() {
      const { front, url } = yield* frontedDatabase
      const attempt = yield* ServerClient.make({ url, ...ConnectionUrl.defaultNames(url) }, { shared: 1, own: 1 }).pipe(
        Effect.flatMap((sql) => sql`SELECT 1`),
        Effect.provide(Reactivity.layer),
        Effect.timeout("10 seconds"),
        Effect.result
      )
      assert.strictEqual(attempt._tag, "Failure")
      assert.strictEqual(front.secured(), 0)
    }))))
})
