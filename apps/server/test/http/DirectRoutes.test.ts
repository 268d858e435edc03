/**
 * Requests a direct route takes never reach the application's listener, the others do, and the
 * listeners added before the routes (the idle connections' watch) see every request; the
 * application's listener, removed, takes its wrapper with it.
 */
import { assert, describe, it } from "@effect/vitest"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { makeTable, routeDirectly } from "../../src/http/DirectRoutes.ts"

const listen = (server: Server) =>
  new Promise<string>((resolve) => server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)))

const close = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections()
    server.close(() => resolve())
  })

describe("direct routes", () => {
  it("answer what they take ahead of the application, which answers the rest", async () => {
    const seenFirst: Array<string> = []
    const applied: Array<string> = []
    const server = createServer()
    server.on("request", (request: IncomingMessage) => void seenFirst.push(request.url ?? ""))
    const table = makeTable()
    routeDirectly(server, table)
    table.add((request, response) => {
      if (request.url !== "/direct") return false
      response.end("direct")
      return true
    })
    const application = (request: IncomingMessage, response: ServerResponse) => {
      applied.push(request.url ?? "")
      response.end("application")
    }
    server.on("request", application)
    const url = await listen(server)
    try {
      assert.strictEqual(await (await fetch(`${url}/direct`)).text(), "direct")
      assert.strictEqual(await (await fetch(`${url}/other`)).text(), "application")
      assert.deepStrictEqual(seenFirst, ["/direct", "/other"])
      assert.deepStrictEqual(applied, ["/other"])

      server.off("request", application)
      assert.strictEqual(server.listenerCount("request"), 1)
    } finally {
      await close(server)
    }
  })
})
