/**
 * A shared connection's socket (CoalescingSocket.ts): what is written to it in several callbacks of
 * one turn of the event loop leaves in one write, in order, and nothing is held into the next turn.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Net from "node:net"
import * as CoalescingSocket from "../src/CoalescingSocket.ts"

interface Received {
  readonly port: number
  readonly text: () => string
  readonly close: () => Promise<void>
}

const listen = (): Promise<Received> =>
  new Promise((resolve) => {
    let text = ""
    const sockets = new Set<Net.Socket>()
    const server = Net.createServer((socket) => {
      sockets.add(socket)
      socket.on("data", (data) => {
        text += data.toString("utf8")
      })
    })
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      resolve({
        port: typeof address === "object" && address !== null ? address.port : 0,
        text: () => text,
        close: () =>
          new Promise((closed) => {
            for (const socket of sockets) socket.destroy()
            server.close(() => closed())
          })
      })
    })
  })

/** The socket's writes as its stream makes them: one call per write that reaches the system. */
const countWrites = (socket: Net.Socket) => {
  const counts: { single: number; batched: Array<number> } = { single: 0, batched: [] }
  const write = socket._write.bind(socket)
  const writev = socket._writev?.bind(socket)
  socket._write = (chunk, encoding, callback) => {
    counts.single++
    write(chunk, encoding, callback)
  }
  socket._writev = (chunks, callback) => {
    counts.batched.push(chunks.length)
    writev?.(chunks, callback)
  }
  return counts
}

const turn = () => new Promise((resolve) => setImmediate(resolve))

const until = async (holds: () => boolean) => {
  const deadline = Date.now() + 5_000
  while (!holds()) {
    if (Date.now() > deadline) throw new Error("timed out")
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

describe("CoalescingSocket", () => {
  it("sends what several callbacks of one turn write as one write, in order", async () => {
    const received = await listen()
    const socket = CoalescingSocket.connect({ _tag: "Tcp", host: "127.0.0.1", port: received.port })
    try {
      await new Promise((resolve) => socket.once("connect", resolve))
      const counts = countWrites(socket)
      // Callbacks of one phase of the loop, as the requests read in one poll are: immediates queued
      // together run in one check phase (one queued meanwhile, as the release is, in the next one).
      const corkedInTurn = await new Promise<number>((resolve) => {
        for (const piece of ["one,", "two,", "three,"]) setImmediate(() => socket.write(piece))
        setImmediate(() => resolve(socket.writableCorked))
      })
      assert.strictEqual(corkedInTurn, 1)
      await turn()
      assert.strictEqual(socket.writableCorked, 0)
      assert.deepStrictEqual(counts, { single: 0, batched: [3] })

      // The next turn's write is not held with the last one's.
      socket.write("four", () => {})
      await turn()
      assert.deepStrictEqual(counts, { single: 1, batched: [3] })
      await until(() => received.text() === "one,two,three,four")
    } finally {
      socket.destroy()
      await received.close()
    }
  })

  it("keeps what is written before the connection is up", async () => {
    const received = await listen()
    const socket = CoalescingSocket.connect({ _tag: "Tcp", host: "127.0.0.1", port: received.port })
    try {
      socket.write("early")
      await until(() => received.text() === "early")
    } finally {
      socket.destroy()
      await received.close()
    }
  })
})
