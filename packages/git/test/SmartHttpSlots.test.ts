/**
 * What holds a git slot (GitProcessSlots.ts): a git process, and nothing else. An answer kept from
 * before needs none, and a request still being sent is waited for without one (a push without its
 * repository's write section too).
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { createServer, type Server } from "node:http"
import { type AddressInfo, connect } from "node:net"
import { setTimeout as sleep } from "node:timers/promises"
import { GitProcessSlots } from "../src/GitProcessSlots.ts"
import { FLUSH_LINE, pktLine } from "../src/PktLine.ts"
import { makeSmartHttpHandler } from "../src/SmartHttp.ts"
import { GitSandbox } from "./GitSandbox.ts"

let sandbox: GitSandbox
let server: Server
let base: string
let port: number
let head: string
let work: string
// One slot and no queue: a request that needs a slot while it is taken is answered 503 at once.
const slots = new GitProcessSlots(1, 0)

beforeAll(async () => {
  sandbox = await GitSandbox.make()
  const made = await sandbox.threeCommits("work")
  work = made.work
  head = made.commits[2] ?? ""
  await sandbox.git(["clone", "-q", "--bare", work, sandbox.path("repositories", "alice", "public.git")])
  const handler = makeSmartHttpHandler({
    authorize: (request) => Promise.resolve({ kind: "allowed", path: sandbox.path("repositories", request.owner, `${request.repo}.git`) }),
    afterPush: () => Promise.resolve(),
    slots,
    onError: () => {}
  })
  server = createServer(handler)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  port = (server.address() as AddressInfo).port // a listening TCP server has an AddressInfo
  base = `http://127.0.0.1:${port}/alice/public.git`
})

afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
  await sandbox.dispose()
})

const lsRefs = pktLine("command=ls-refs\n") + pktLine("object-format=sha1\n") + "0001" + pktLine("peel\n") + pktLine("symrefs\n") +
  pktLine("ref-prefix refs/heads/\n") + FLUSH_LINE

const advertisement = (protocol?: string) =>
  fetch(`${base}/info/refs?service=git-upload-pack`, { headers: protocol === undefined ? {} : { "Git-Protocol": protocol } })

const v2Post = (body: string) =>
  fetch(`${base}/git-upload-pack`, {
    method: "POST",
    headers: { "Content-Type": "application/x-git-upload-pack-request", "Git-Protocol": "version=2" },
    body
  })

/** Runs `use` while a task of the test holds the one slot. */
const whileSlotTaken = async (use: () => Promise<void>) => {
  let release = () => {}
  const held = slots.run(() => new Promise<void>((resolve) => (release = resolve)))
  try {
    assert.strictEqual(slots.running, 1)
    await use()
  } finally {
    release()
    await held
  }
}

describe("git slots", () => {
  it("an advertisement or ls-refs answer kept from before is answered while every slot is taken", async () => {
    // Made once by git, in a slot.
    for (const response of [await advertisement("version=2"), await advertisement(), await v2Post(lsRefs)]) {
      assert.strictEqual(response.status, 200)
      await response.arrayBuffer()
    }
    await whileSlotTaken(async () => {
      const v2 = await advertisement("version=2")
      assert.strictEqual(v2.status, 200)
      assert.include(await v2.text(), "ls-refs")
      const v0 = await advertisement()
      assert.strictEqual(v0.status, 200)
      assert.include(await v0.text(), head)
      const listing = await v2Post(lsRefs)
      assert.strictEqual(listing.status, 200)
      assert.include(await listing.text(), `${head} refs/heads/main`)
      // A fetch needs git: with no slot free and no queue, it is told to come back.
      const fetchPack = await v2Post(pktLine("command=fetch\n") + "0001" + pktLine(`want ${head}\n`) + pktLine("done\n") + FLUSH_LINE)
      assert.strictEqual(fetchPack.status, 503)
      await fetchPack.arrayBuffer()
    })
  })

  /** A request of `service` that promises 10,000 bytes and sends `start` alone. */
  const halfSent = (service: string, start: string) => {
    const socket = connect(port, "127.0.0.1")
    socket.on("error", () => undefined)
    socket.write(
      `POST /alice/public.git/${service} HTTP/1.1\r\nHost: localhost\r\n` +
        `Content-Type: application/x-${service}-request\r\nContent-Length: 10000\r\n\r\n${start}`
    )
    return socket
  }

  it("a fetch whose client is still sending its request holds no slot meanwhile", async () => {
    const socket = halfSent("git-upload-pack", pktLine(`want ${head} multi_ack_detailed side-band-64k ofs-delta\n`))
    try {
      await sleep(300)
      assert.strictEqual(slots.running, 0)
      assert.strictEqual(slots.waiting, 0)
      // Another client's fetch runs meanwhile.
      const clone = await sandbox.run(["clone", "-q", "--bare", base, sandbox.path("clone.git")])
      assert.strictEqual(clone.code, 0, clone.stderr)
    } finally {
      socket.destroy()
    }
  })

  it("a push whose client is still sending it holds neither a slot nor its repository's write section", async () => {
    const socket = halfSent("git-receive-pack", pktLine(`${head} ${head} refs/heads/other\0report-status\n`))
    try {
      await sleep(300)
      assert.strictEqual(slots.running, 0)
      // Another push to the same repository goes through meanwhile.
      const push = await sandbox.run(["push", "-q", base, "HEAD:refs/heads/pushed"], { cwd: work })
      assert.strictEqual(push.code, 0, push.stderr)
      assert.strictEqual((await sandbox.refs(sandbox.path("repositories", "alice", "public.git"))).get("refs/heads/pushed"), head)
    } finally {
      socket.destroy()
    }
  })

  it("a client sending more than a MiB and then trickling holds its share of the slots, not every slot", async () => {
    // Two slots, a share of one; the test names each request's client as a proxy would (its address),
    // and the decision counts an anonymous request against it, as Kiln's does.
    const shared = new GitProcessSlots(2, 0)
    const handler = makeSmartHttpHandler({
      authorize: (request) =>
        Promise.resolve({
          kind: "allowed",
          path: sandbox.path("repositories", request.owner, `${request.repo}.git`),
          client: request.clientAddress
        }),
      afterPush: () => Promise.resolve(),
      slots: shared,
      onError: () => {}
    })
    const other = createServer((req, res) => handler(req, res, String(req.headers["x-client"])))
    await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve))
    const otherPort = (other.address() as AddressInfo).port // a listening TCP server has an AddressInfo
    // A v0 fetch request whose first 1.2 MB come at once, and whose rest never does.
    const haves = pktLine(`have ${head}\n`).repeat(24_000)
    const trickling = () => {
      const socket = connect(otherPort, "127.0.0.1")
      socket.on("error", () => undefined)
      const received: Array<Buffer> = []
      socket.on("data", (chunk: Buffer) => received.push(chunk))
      socket.write(
        "POST /alice/public.git/git-upload-pack HTTP/1.1\r\nHost: localhost\r\nX-Client: 192.0.2.1\r\n" +
          "Content-Type: application/x-git-upload-pack-request\r\nContent-Length: 4000000\r\n\r\n" +
          pktLine(`want ${head} multi_ack_detailed side-band-64k ofs-delta\n`) + "0000" + haves
      )
      return { socket, text: () => Buffer.concat(received).toString("latin1") }
    }
    const first = trickling()
    for (let waited = 0; waited < 5_000 && shared.running === 0; waited += 20) await sleep(20)
    const second = trickling()
    try {
      for (let waited = 0; waited < 5_000 && !second.text().includes("HTTP/1.1"); waited += 20) await sleep(20)
      // The first runs git; the second finds the client's share taken (and no queue): told to come back.
      assert.strictEqual(shared.running, 1)
      assert.include(second.text(), "HTTP/1.1 503")
      const clone = await sandbox.run([
        "-c", "http.extraHeader=X-Client: 198.51.100.7",
        "clone", "-q", "--bare", `http://127.0.0.1:${otherPort}/alice/public.git`, sandbox.path("clone-share.git")
      ])
      assert.strictEqual(clone.code, 0, clone.stderr)
    } finally {
      first.socket.destroy()
      second.socket.destroy()
      other.closeAllConnections()
      await new Promise((resolve) => other.close(resolve))
    }
  })
})
