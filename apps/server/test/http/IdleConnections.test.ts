import { afterAll, assert, beforeAll, it } from "@effect/vitest"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import { type AddressInfo, connect } from "node:net"
import { setTimeout as sleep } from "node:timers/promises"
import { closeIdleConnections, MIN_BODY_BYTES_PER_PERIOD } from "../../src/http/IdleConnections.ts"
import { createNodeServer } from "../../src/http/NodeServer.ts"

const IDLE_MS = 600

let server: Server
let port: number

// Echoes the body's length; `/slow` answers only after working three idle periods.
const answer = (request: IncomingMessage, response: ServerResponse) => {
  let length = 0
  request.on("data", (chunk: Buffer) => {
    length += chunk.length
  })
  request.on("end", () => {
    const delay = request.url === "/slow" ? IDLE_MS * 3 : 0
    setTimeout(() => response.end(`received ${length}`), delay)
  })
}

beforeAll(async () => {
  server = closeIdleConnections(createServer({ requestTimeout: 0 }, answer), IDLE_MS)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  port = (server.address() as AddressInfo).port // a listening TCP server has an AddressInfo
})

afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})

/** A raw HTTP/1.1 POST whose body the test sends itself. */
const rawPost = (path: string, length: number) => {
  const socket = connect(port, "127.0.0.1")
  socket.write(`POST ${path} HTTP/1.1\r\nHost: localhost\r\nContent-Length: ${length}\r\n\r\n`)
  const received: Array<Buffer> = []
  socket.on("data", (chunk: Buffer) => received.push(chunk))
  socket.on("error", () => undefined)
  const closed = new Promise<number>((resolve) => socket.on("close", () => resolve(performance.now())))
  return { socket, closed, text: () => Buffer.concat(received).toString("latin1") }
}

const answered = async (post: ReturnType<typeof rawPost>, timeoutMillis: number) => {
  for (let waited = 0; waited < timeoutMillis && !post.text().includes("received"); waited += 25) await sleep(25)
  return post.text()
}

it("closes a connection whose request body stops arriving", async () => {
  const started = performance.now()
  const post = rawPost("/", 100)
  post.socket.write("0123456789")
  const closedAt = await Promise.race([post.closed, sleep(IDLE_MS * 8).then(() => undefined)])
  post.socket.destroy()
  assert.isDefined(closedAt, "the stalled connection was never closed")
  assert.isAtLeast((closedAt ?? 0) - started, IDLE_MS * 0.9)
  assert.notInclude(post.text(), "received")
})

it("closes a connection whose headers stop arriving", async () => {
  const socket = connect(port, "127.0.0.1")
  socket.on("error", () => undefined)
  socket.write("GET / HTTP/1.1\r\nHost: loc")
  const closed = new Promise<boolean>((resolve) => socket.on("close", () => resolve(true)))
  assert.isTrue(await Promise.race([closed, sleep(IDLE_MS * 8).then(() => false)]))
})

it("never cuts a body that keeps arriving, however long it takes in all", async () => {
  const started = performance.now()
  const chunk = "x".repeat(MIN_BODY_BYTES_PER_PERIOD)
  const post = rawPost("/", chunk.length * 10)
  for (let sent = 0; sent < 10; sent++) {
    post.socket.write(chunk)
    await sleep(IDLE_MS / 3)
  }
  assert.include(await answered(post, 5_000), `received ${chunk.length * 10}`)
  assert.isAbove(performance.now() - started, IDLE_MS * 3)
  post.socket.destroy()
})

it("never cuts a request the server is still working on", async () => {
  const post = rawPost("/slow", 3)
  post.socket.write("abc")
  assert.include(await answered(post, IDLE_MS * 8), "received 3")
  post.socket.destroy()
})

// Review finding 17: a byte every third of the idle period never lets the socket go idle.
it("closes a connection whose body trickles in slower than the minimum", async () => {
  const post = rawPost("/", 10_000)
  let sent = 0
  const trickle = setInterval(() => {
    if (!post.socket.destroyed) post.socket.write("x")
    sent++
  }, IDLE_MS / 3)
  const closedAt = await Promise.race([post.closed, sleep(IDLE_MS * 8).then(() => undefined)])
  clearInterval(trickle)
  post.socket.destroy()
  assert.isDefined(closedAt, `the trickling connection was never closed (${sent} bytes sent)`)
  assert.notInclude(post.text(), "received")
})

it("closes a connection whose headers trickle in past the headers timeout, with 408", async () => {
  const HEADERS_MS = IDLE_MS * 3
  const server = createNodeServer({ idleMillis: IDLE_MS, headersMillis: HEADERS_MS, checkMillis: 100 })
  server.on("request", answer)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  try {
    const socket = connect((server.address() as AddressInfo).port, "127.0.0.1")
    const received: Array<Buffer> = []
    socket.on("data", (chunk: Buffer) => received.push(chunk))
    socket.on("error", () => undefined)
    const closed = new Promise<number>((resolve) => socket.on("close", () => resolve(performance.now())))
    const started = performance.now()
    const head = "GET / HTTP/1.1\r\nHost: localhost\r\nX-Slow: " + "x".repeat(1000)
    let index = 0
    // Never idle: a byte every third of the idle period.
    const trickle = setInterval(() => {
      if (!socket.destroyed && index < head.length) socket.write(head[index++] ?? "")
    }, IDLE_MS / 3)
    const closedAt = await Promise.race([closed, sleep(HEADERS_MS * 6).then(() => undefined)])
    clearInterval(trickle)
    socket.destroy()
    assert.isDefined(closedAt, "headers that never end kept the connection")
    assert.isAtLeast((closedAt ?? 0) - started, HEADERS_MS * 0.9)
    assert.include(Buffer.concat(received).toString("latin1"), "408")
  } finally {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  }
})
