import { assert, describe, it } from "@effect/vitest"
import { once } from "node:events"
import { connect, createServer, type Server, type Socket } from "node:net"
import { createServer as createHttpServer } from "node:http"
import { watchAcceptedConnections } from "../../src/platform/AcceptedConnections.ts"

const listening = async (server: Server): Promise<number> => {
  server.listen(0, "127.0.0.1")
  await once(server, "listening")
  const address = server.address()
  return typeof address === "object" && address !== null ? address.port : 0
}

/** A client connection, resolved once the server side has accepted it. */
const connected = async (server: Server, port: number): Promise<Socket> => {
  const accepted = once(server, "connection")
  const client = connect(port, "127.0.0.1")
  await accepted
  return client
}

const closed = async (client: Socket) => {
  client.end()
  await once(client, "close")
  // The server's side closes a turn later.
  await new Promise((resolve) => setTimeout(resolve, 20))
}

describe("watchAcceptedConnections", () => {
  it("tells when the first connection opens and the last one closes, across servers", async () => {
    const events: Array<string> = []
    const stop = watchAcceptedConnections({ first: () => events.push("first"), last: () => events.push("last") })
    const plain = createServer((socket) => socket.on("end", () => socket.end()))
    const http = createHttpServer()
    try {
      const plainPort = await listening(plain)
      const httpPort = await listening(http)
      assert.deepStrictEqual(events, [])
      const one = await connected(plain, plainPort)
      assert.deepStrictEqual(events, ["first"])
      const two = await connected(http, httpPort)
      await closed(one)
      assert.deepStrictEqual(events, ["first"])
      await closed(two)
      assert.deepStrictEqual(events, ["first", "last"])
      await closed(await connected(plain, plainPort))
      assert.deepStrictEqual(events, ["first", "last", "first", "last"])
      stop()
      await closed(await connected(plain, plainPort))
      assert.deepStrictEqual(events, ["first", "last", "first", "last"])
    } finally {
      stop()
      plain.close()
      http.close()
    }
  })
})
