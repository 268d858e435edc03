/**
 * Review finding 21: one anonymous request froze the server for minutes. Every JSON and form body
 * was parsed before routing and authentication, a form by Node's URLSearchParams (quadratic on
 * `a&a&a&…`: 2 MiB held the event loop for 9.5 s) and a JSON body by JSON.parse (32 MiB of `[` took
 * 1.7-4 s and 1.3 GB), and then scanned again for Go's syntax message.
 *
 * Here the shipped server runs in its own process with the old 32 MiB body limit, and hostile 32 MiB
 * bodies go to routes that refuse them before reading (an unknown path, routes that need a sign-in)
 * and to one that reads them (an administrator's user creation). Meanwhile `/api/v1/version` is
 * probed every 50 ms. Each hostile request must end, and every probe be answered, within bounds
 * that are hang guards (the bug took minutes), not timings.
 */
import { assert, describe, it } from "@effect/vitest"
import { request as httpRequest } from "node:http"
import { setTimeout as sleep } from "node:timers/promises"
import * as FuzzServer from "../fuzz/FuzzServer.ts"

const MiB = 1024 * 1024
const SIZE = 32 * MiB

interface Answer {
  readonly status: number
  readonly text: string
}

/**
 * Sends a body and resolves with the answer, which may come before the body is all sent (the
 * server then closes the connection: a write error after the answer is expected).
 */
const send = (base: string, method: string, path: string, headers: Record<string, string>, body: Buffer) =>
  new Promise<Answer>((resolve, reject) => {
    const url = new URL(base)
    let answered = false
    const req = httpRequest({
      host: url.hostname,
      port: url.port,
      method,
      path,
      headers: { ...headers, "content-length": String(body.length) }
    }, (res) => {
      answered = true
      const chunks: Array<Buffer> = []
      res.on("data", (chunk: Buffer) => chunks.push(chunk))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }))
      res.on("error", reject)
    })
    req.on("error", (error) => {
      if (!answered) reject(error)
    })
    req.end(body)
  })

/** Probes `/version` every 50 ms while `work` runs; the slowest probe's time and how many answered. */
const probing = async <A>(base: string, work: Promise<A>) => {
  let done = false
  let slowest = 0
  let answered = 0
  const probes = (async () => {
    while (!done) {
      const started = performance.now()
      const response = await fetch(`${base}/api/v1/version`, { signal: AbortSignal.timeout(60_000) })
      await response.text()
      if (response.status === 200) answered++
      slowest = Math.max(slowest, performance.now() - started)
      await sleep(50)
    }
  })()
  const result = await work
  done = true
  await probes
  return { result, slowest, answered }
}

const fill = (pattern: string, size: number, prefix = "", suffix = "") => {
  const body = Buffer.alloc(size, pattern)
  body.write(prefix, 0)
  body.write(suffix, size - suffix.length)
  return body
}

const hostileBodies: ReadonlyArray<{ readonly name: string; readonly contentType: string; readonly body: Buffer }> = [
  { name: "value-less form pairs", contentType: "application/x-www-form-urlencoded", body: fill("a&", SIZE) },
  { name: "32 MiB of [", contentType: "application/json", body: fill("[", SIZE) },
  { name: "one 32 MiB string", contentType: "application/json", body: fill("x", SIZE, `{"username":"`, `"}`) },
  { name: "the same without a type", contentType: "", body: fill("x", SIZE, `{"username":"`, `"}`) }
]

describe("hostile request bodies", () => {
  it("are refused or read in linear time, after authentication, while the server keeps answering", { timeout: 600_000 }, async () => {
    const server = await FuzzServer.start({ KILN_HTTP_MAX_BODY_SIZE: String(SIZE) })
    try {
      const anonymous = {}
      const admin = { authorization: `token ${server.token}` }
      const targets = [
        { path: "/api/v1/no/such/route", headers: anonymous, statuses: [404, 405] },
        { path: "/api/v1/markdown", headers: anonymous, statuses: [401] },
        { path: "/api/v1/admin/users", headers: anonymous, statuses: [401] },
        // Read and parsed: the form has too many fields (413), the JSON is too deep or its name too long (422).
        { path: "/api/v1/admin/users", headers: admin, statuses: [413, 422] }
      ]
      for (const target of targets) {
        for (const hostile of hostileBodies) {
          const headers = { ...target.headers, ...(hostile.contentType === "" ? {} : { "content-type": hostile.contentType }) }
          const started = performance.now()
          const { result, slowest, answered } = await probing(
            server.base,
            send(server.base, "POST", target.path, headers, hostile.body)
          )
          const took = performance.now() - started
          const what = `${hostile.name} to ${target.path} ${target.headers === admin ? "as admin" : "anonymously"}`
          console.log(`${what}: ${result.status} in ${Math.round(took)} ms, slowest /version ${Math.round(slowest)} ms`)
          assert.include(target.statuses, result.status, `${what}: ${result.status} ${result.text.slice(0, 200)}`)
          assert.isBelow(took, 30_000, `${what} took ${Math.round(took)} ms`)
          assert.isBelow(slowest, 10_000, `${what}: /version waited ${Math.round(slowest)} ms`)
          assert.isAbove(answered, 0, `${what}: /version never answered`)
          // No answer repeats the body.
          assert.notInclude(result.text, "xxxxxxxx")
          assert.notInclude(result.text, "a&a&")
        }
      }
      const version = await fetch(`${server.base}/api/v1/version`)
      assert.strictEqual(version.status, 200)
    } finally {
      await server.stop()
    }
  })
})
