import { assert, describe, it } from "@effect/vitest"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { holdEarlyRequests } from "../../src/http/EarlyRequests.ts"
import { createNodeServer } from "../../src/http/NodeServer.ts"

describe("requests arriving before the routes", () => {
  it("wait for the routes' listener and are answered by it", async () => {
    const server = holdEarlyRequests(createServer())
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const { port } = server.address() as AddressInfo
    try {
      const early = [1, 2, 3].map((n) => fetch(`http://127.0.0.1:${port}/early/${n}`, { method: "POST", body: `body ${n}` }))
      // Let the requests reach the server while nothing serves them yet.
      await new Promise((resolve) => setTimeout(resolve, 200))
      server.on("request", (request, response) => {
        let body = ""
        request.on("data", (chunk) => (body += String(chunk)))
        request.on("end", () => {
          response.end(`${request.url} ${body}`)
        })
      })
      const answers = await Promise.all(early.map(async (answer) => (await answer).text()))
      assert.deepStrictEqual(answers, ["/early/1 body 1", "/early/2 body 2", "/early/3 body 3"])
      assert.strictEqual(server.listenerCount("request"), 1)
      assert.strictEqual((await (await fetch(`http://127.0.0.1:${port}/later`, { method: "POST", body: "x" })).text()), "/later x")
    } finally {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
  })

  it("are held in the server Kiln listens with, whose idle watch also listens for requests", async () => {
    const server = createNodeServer({ idleMillis: 5_000 })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const { port } = server.address() as AddressInfo
    try {
      const early = fetch(`http://127.0.0.1:${port}/early`, { signal: AbortSignal.timeout(5_000) })
      await new Promise((resolve) => setTimeout(resolve, 200))
      server.on("request", (request, response) => {
        response.end(`routes answered ${request.url}`)
      })
      assert.strictEqual(await (await early).text(), "routes answered /early")
    } finally {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
  })
})
