/**
 * Stored files (LFS objects, release attachments, package blobs, archives) are opened only to be
 * sent, and closed again whatever becomes of the response. A HEAD (whose body is never sent) used
 * to open the file while the response was built and never close it: one descriptor per request,
 * for good, until the process ran out (EMFILE). The server runs in this process, so its open
 * descriptors are the links under /proc/self/fd.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { createHash, randomBytes } from "node:crypto"
import * as Fs from "node:fs"
import { connect } from "node:net"
import * as Path from "node:path"
import { KilnConfig } from "../../src/config/KilnConfig.ts"
import { seedRepository } from "./ArchiveFixtures.ts"
import { at, baseUrl, createUser, request } from "../support/TestServer.ts"
import * as TestServer from "../support/TestServer.ts"

const REQUESTS = 8

const authHeader = (auth: TestServer.Auth): Record<string, string> =>
  auth.basic === undefined ? {} : { authorization: `Basic ${Buffer.from(`${auth.basic.username}:${auth.basic.password}`).toString("base64")}` }

const call = (method: string, path: string, auth?: TestServer.Auth, body?: Uint8Array, headers: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const base = yield* baseUrl
    const response = yield* Effect.promise(() =>
      fetch(`${base}${path}`, {
        method,
        headers: { ...(auth === undefined ? {} : authHeader(auth)), ...headers },
        redirect: "manual",
        ...(body === undefined ? {} : { body })
      }))
    const bytes = Buffer.from(yield* Effect.promise(() => response.arrayBuffer()))
    return { status: response.status, headers: response.headers, bytes, text: bytes.toString("utf8") }
  })

/** Real time, not the test clock. */
const pause = (millis: number) => Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, millis)))

/** This process's open descriptors on `target` (a file, or the files in a folder). */
const countOpen = (target: string) => {
  let open = 0
  for (const fd of Fs.readdirSync("/proc/self/fd")) {
    try {
      const link = Fs.readlinkSync(`/proc/self/fd/${fd}`)
      if (link === target || link.startsWith(`${target}/`)) open++
    } catch {
      // closed since the listing
    }
  }
  return open
}

/** The full path of `place` in the data directory. */
const inDataDir = (place: string) => Effect.map(Effect.service(KilnConfig), (config) => Path.join(config.dataDir, place))

const openFilesUnder = (place: string) => Effect.map(inDataDir(place), countOpen)

/**
 * The descriptors left open on `place` once things settle: a file that would leak is opened a
 * moment after its response is built (the open runs in Node's thread pool), so the count is read
 * after a pause, then until it reaches zero or the time is up.
 */
const settledOpenFiles = (place: string) =>
  Effect.gen(function*() {
    yield* pause(300)
    for (let tries = 0; tries < 50; tries++) {
      const open = yield* openFilesUnder(place)
      if (open === 0) return 0
      yield* pause(40)
    }
    return yield* openFilesUnder(place)
  })

/** REQUESTS HEAD requests for `path`, each answered `status` with the file's length and no body. */
const heads = (path: string, auth: TestServer.Auth | undefined, length: number, status = 200) =>
  Effect.gen(function*() {
    for (let i = 0; i < REQUESTS; i++) {
      const answer = yield* call("HEAD", path, auth)
      assert.strictEqual(answer.status, status)
      assert.strictEqual(answer.headers.get("content-length"), String(length))
      assert.strictEqual(answer.bytes.length, 0)
    }
  })

const lfsObject = (owner: string, repo: string, size: number) =>
  Effect.gen(function*() {
    const user = yield* createUser(owner)
    const created = yield* request("POST", "/api/v1/user/repos", { auth: user.auth, json: { name: repo } })
    assert.strictEqual(created.status, 201, created.text)
    const content = randomBytes(size)
    const oid = createHash("sha256").update(content).digest("hex")
    const put = yield* call("PUT", `/${owner}/${repo}.git/info/lfs/objects/${oid}/${size}`, user.auth, content, {
      "content-type": "application/octet-stream"
    })
    assert.strictEqual(put.status, 200, put.text)
    const file = Path.join("lfs", oid.slice(0, 2), oid.slice(2, 4), oid.slice(4))
    return { user, content, oid, file, path: `/${owner}/${repo}.git/info/lfs/objects/${oid}` }
  })

/**
 * Sends a GET over a raw socket, reads until the response's head has come (the file is being
 * sent), then stops reading and closes the connection with most of the body unread. Returns the
 * response's head and the descriptors open on `file` just before the close.
 */
const abandonedGet = (path: string, auth: TestServer.Auth, file: string) =>
  Effect.gen(function*() {
    const base = yield* baseUrl
    const url = new URL(`${base}${path}`)
    return yield* Effect.promise(() =>
      new Promise<{ readonly head: string; readonly openWhileSending: number }>((resolve, reject) => {
        const socket = connect(Number(url.port), url.hostname)
        let received = Buffer.alloc(0)
        socket.on("error", reject)
        socket.on("data", (chunk: Buffer) => {
          received = Buffer.concat([received, chunk])
          const end = received.indexOf("\r\n\r\n")
          if (end < 0) return
          socket.pause()
          socket.removeAllListeners("data")
          // Long enough for the server to fill the socket's buffers and wait for room.
          setTimeout(() => {
            const openWhileSending = countOpen(file)
            socket.destroy()
            resolve({ head: received.subarray(0, end).toString("latin1"), openWhileSending })
          }, 200)
        })
        const headers = Object.entries({ host: url.host, ...authHeader(auth) }).map(([name, value]) => `${name}: ${value}\r\n`).join("")
        socket.write(`GET ${url.pathname} HTTP/1.1\r\n${headers}\r\n`)
      }))
  })

layer(TestServer.layer(), { timeout: "180 seconds" })("stored file descriptors", (it) => {
  it.effect("HEAD of an LFS object leaves no file open; a GET closes its file once sent", () =>
    Effect.gen(function*() {
      const { content, file, path, user } = yield* lfsObject("fd-lfs", "media", 50_000)
      const whole = yield* call("GET", path, user.auth)
      assert.strictEqual(whole.status, 200)
      assert.isTrue(whole.bytes.equals(content))
      assert.strictEqual(yield* settledOpenFiles(file), 0, "a GET closes its file")

      yield* heads(path, user.auth, content.length)
      yield* heads(`${path}/${Buffer.from("日本.txt").toString("base64url")}`, user.auth, content.length)
      const ranged = yield* call("HEAD", path, user.auth, undefined, { range: "bytes=10-19" })
      assert.strictEqual(ranged.status, 206)
      assert.strictEqual(yield* settledOpenFiles(file), 0, "HEAD requests leave no LFS object open")
    }))

  it.effect("HEAD of an attachment or a generic package file leaves no file open", () =>
    Effect.gen(function*() {
      const owner = yield* createUser("fd-owner")
      const repo = yield* request("POST", "/api/v1/user/repos", { auth: owner.auth, json: { name: "app", auto_init: true } })
      assert.strictEqual(repo.status, 201, repo.text)
      const release = yield* request("POST", "/api/v1/repos/fd-owner/app/releases", { auth: owner.auth, json: { tag_name: "v1.0" } })
      assert.strictEqual(release.status, 201, release.text)
      const attachment = randomBytes(20_000)
      const uploaded = yield* call(
        "POST",
        `/api/v1/repos/fd-owner/app/releases/${at(release.body, "id")}/assets?name=data.bin`,
        owner.auth,
        attachment,
        { "content-type": "application/octet-stream" }
      )
      assert.strictEqual(uploaded.status, 201, uploaded.text)
      const uuid = String(at(JSON.parse(uploaded.text), "uuid"))
      yield* heads(`/attachments/${uuid}`, undefined, attachment.length)
      assert.strictEqual(yield* settledOpenFiles("attachments"), 0, "HEAD requests leave no attachment open")

      const blob = randomBytes(30_000)
      const put = yield* call("PUT", "/api/packages/fd-owner/generic/tool/1.0.0/tool.bin", owner.auth, blob)
      assert.strictEqual(put.status, 201, put.text)
      yield* heads("/api/packages/fd-owner/generic/tool/1.0.0/tool.bin", owner.auth, blob.length)
      assert.strictEqual(yield* settledOpenFiles("packages"), 0, "HEAD requests leave no package file open")
    }))

  it.effect("HEAD of an archive leaves no file open", () =>
    Effect.gen(function*() {
      const ada = yield* createUser("fd-ada")
      const { id } = yield* seedRepository(ada.auth, "fd-ada", "content")
      const archives = Path.join("archives", String(id))
      const zip = yield* call("GET", "/api/v1/repos/fd-ada/content/archive/main.zip", ada.auth)
      assert.strictEqual(zip.status, 200)
      assert.strictEqual(yield* settledOpenFiles(archives), 0, "a GET closes its archive")
      yield* heads("/api/v1/repos/fd-ada/content/archive/main.zip", ada.auth, zip.bytes.length)
      yield* heads("/api/v1/repos/fd-ada/content/archive/main.tar.gz", ada.auth, Number(
        (yield* call("GET", "/api/v1/repos/fd-ada/content/archive/main.tar.gz", ada.auth)).bytes.length
      ))
      assert.strictEqual(yield* settledOpenFiles(archives), 0, "HEAD requests leave no archive open")
    }))

  // The stream runs here, and is interrupted: this guards the release of a running stream (the
  // code before the fix passed it too, its leak being streams that never ran).
  it.effect("a GET whose client leaves with the body unread closes its file", () =>
    Effect.gen(function*() {
      // Far more than the socket buffers hold, so the server is still sending when the client goes.
      const { file, path, user } = yield* lfsObject("fd-gone", "media", 16 * 1024 * 1024)
      const fullPath = yield* inDataDir(file)
      for (let i = 0; i < 3; i++) {
        const { head, openWhileSending } = yield* abandonedGet(path, user.auth, fullPath)
        assert.match(head, /^HTTP\/1\.1 200 /)
        assert.strictEqual(openWhileSending, 1, "the file is open while it is being sent")
      }
      assert.strictEqual(yield* settledOpenFiles(file), 0, "an abandoned GET leaves no LFS object open")
    }))
})
