/**
 * The fuzz test of the whole API (issue 15): every operation of the served `/swagger.v1.json`,
 * valid requests and hostile mutations of them (Mutations.ts), sent to the shipped server in its
 * own process. Every answer must be below 500; every 4xx Forgejo's JSON error; no body may carry
 * a stack trace or a server path; the server must keep answering `/version`.
 *
 * The CI run is bounded by time (KILN_FUZZ_SECONDS, default 60). A longer run:
 *   KILN_FUZZ_RUNS=20000 npx --yes pnpm@12.21.0 test:fuzz
 * Every run prints its seed; a failure replays with KILN_FUZZ_SEED=<seed> (and KILN_FUZZ_PATH=<path>
 * from the failure report to go straight to the shrunk case). KILN_FUZZ_KEEP_GOING=1 lists every
 * failure of the run instead of stopping at the first.
 */
import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { request as httpRequest, Agent } from "node:http"
import * as FuzzServer from "./FuzzServer.ts"
import { apply, describeMutation, mutationFor, type Mutation } from "./Mutations.ts"
import { operationsOf, type Operation, type Request, type SwaggerDocument, urlOf, validRequest } from "./SwaggerOperations.ts"

const envInt = (name: string): number | undefined => {
  const value = process.env[name]
  return value === undefined || value === "" ? undefined : Number.parseInt(value, 10)
}

const RUNS = envInt("KILN_FUZZ_RUNS")
const SECONDS = envInt("KILN_FUZZ_SECONDS") ?? (RUNS === undefined ? 60 : undefined)
const SEED = envInt("KILN_FUZZ_SEED") ?? (Date.now() ^ (Math.random() * 0x1_0000_0000)) | 0
const PATH = process.env["KILN_FUZZ_PATH"]
/** `1`: go on past failures and list them all at the end (to survey, not to replay). */
const KEEP_GOING = process.env["KILN_FUZZ_KEEP_GOING"] === "1"

interface Answer {
  readonly status: number
  readonly contentType: string
  readonly text: string
}

const agent = new Agent({ keepAlive: true, maxSockets: 4 })

/** One request with exactly the bytes given (node:http leaves the path as it is). */
const sendRaw = (base: string, method: string, path: string, headers: Record<string, string>, body?: string) =>
  new Promise<Answer>((resolve, reject) => {
    const url = new URL(base)
    const req = httpRequest({ host: url.hostname, port: url.port, method, path, headers, agent, timeout: 30_000 }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (chunk: Buffer) => chunks.push(chunk))
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          contentType: String(res.headers["content-type"] ?? ""),
          text: Buffer.concat(chunks).toString("utf8")
        }))
      res.on("error", reject)
    })
    req.on("timeout", () => req.destroy(new Error(`no answer within 30 s: ${method} ${path.slice(0, 200)}`)))
    req.on("error", reject)
    req.end(body)
  })

const send = (server: FuzzServer.FuzzServer, basePath: string, operation: Operation, request: Request) => {
  const headers: Record<string, string> = { authorization: `token ${server.token}` }
  let body: string | undefined
  if (request.body !== undefined) {
    if ("json" in request.body) {
      body = JSON.stringify(request.body.json)
      headers["content-type"] = "application/json"
    } else {
      body = request.body.raw
      headers["content-type"] = request.body.contentType
    }
    headers["content-length"] = String(Buffer.byteLength(body))
  }
  return sendRaw(server.base, request.method, urlOf(basePath, operation, request), headers, body)
}

const STACK = /\n\s+at\s|\bat [\w.<>]+ \(|node_modules|file:\/\/|\.ts:\d+|\.js:\d+/

/** What is wrong with an answer, or undefined when it is as Forgejo would answer. */
export const problemOf = (answer: Answer, dataDir: string): string | undefined => {
  if (answer.status >= 500) return `status ${answer.status}`
  if (answer.text.includes(dataDir) || STACK.test(answer.text)) return "a stack trace or a server path in the body"
  if (answer.status < 400) return undefined
  if ([404, 405, 413, 415].includes(answer.status) && answer.contentType.replace(/ /g, "").toLowerCase() !== "application/json;charset=utf-8") {
    return `content type ${JSON.stringify(answer.contentType)}`
  }
  if (!answer.contentType.startsWith("application/json")) return `content type ${JSON.stringify(answer.contentType)}`
  let parsed: unknown
  try {
    parsed = JSON.parse(answer.text)
  } catch {
    return "a body that is not JSON"
  }
  if (typeof parsed !== "object" || parsed === null || typeof (parsed as { message?: unknown }).message !== "string") {
    return "a body without Forgejo's `message`"
  }
  return undefined
}

const sample = (answer: Answer) => `${answer.status} ${answer.contentType} ${answer.text.slice(0, 300)}`

const requestIdOf = (answer: Answer): string | undefined => /"request_id":"([0-9a-f]+)"/.exec(answer.text)?.[1]

/**
 * What the server logged for a 5xx (its cause, under the request id the answer names), so that a
 * failure seen once in CI can be explained without replaying it. The log line may reach us after the
 * answer, so it is waited for briefly.
 */
const serverLogOf = async (server: FuzzServer.FuzzServer, answer: Answer): Promise<string> => {
  const id = requestIdOf(answer)
  if (id === undefined) return "(no request id in the answer)"
  for (let attempt = 0; attempt < 20; attempt++) {
    const at = server.process.output.indexOf(id)
    if (at >= 0) {
      const lineStart = server.process.output.lastIndexOf("\n", at) + 1
      return server.process.output.slice(lineStart, lineStart + 6000)
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return `(request id ${id} not in the server's output)`
}

describe("the API under hostile input", () => {
  it("never answers 5xx, always in Forgejo's error shape, and keeps serving", { timeout: ((SECONDS ?? 3600) + 240) * 1000 }, async () => {
    const server = await FuzzServer.start()
    try {
      const document = JSON.parse((await sendRaw(server.base, "GET", "/swagger.v1.json", {})).text) as SwaggerDocument
      const operations = operationsOf(document)
      assert.isAbove(operations.length, 50)
      let sent = 0
      const failures: Array<string> = []
      const check = async (operation: Operation, request: Request, mutation: Mutation) => {
        const answer = await send(server, document.basePath, operation, request)
        sent++
        const problem = problemOf(answer, server.dataDir)
        if (problem === undefined) return true
        const log = answer.status >= 500 ? `\nserver log: ${await serverLogOf(server, answer)}` : ""
        failures.push(`${problem}: ${request.method} ${operation.template} ${describeMutation(mutation)} → ${sample(answer)}${log}`)
        return false
      }

      // Every operation's valid request once, so that none is left out whatever the budget;
      // deletions last, then the seed again.
      const deletionsLast = [...operations].sort((a, b) => Number(a.method === "DELETE") - Number(b.method === "DELETE"))
      for (const operation of deletionsLast) {
        const [request] = fc.sample(validRequest(document, operation), { numRuns: 1, seed: SEED })
        if (request !== undefined) await check(operation, request, { kind: "none" })
      }
      if (!KEEP_GOING) assert.deepStrictEqual(failures, [], "valid requests")
      await FuzzServer.seed(server.base, server.token)

      console.log(`fuzz seed ${SEED} (replay: KILN_FUZZ_SEED=${SEED})`)
      const started = Date.now()
      const arbitrary = fc.integer({ min: 0, max: operations.length - 1 }).chain((index) => {
        const operation = operations[index] as Operation
        return validRequest(document, operation).chain((request) =>
          mutationFor(operation, request).map((mutation) => ({ operation, request, mutation }))
        )
      })
      let runs = 0
      const result = await fc.check(
        fc.asyncProperty(arbitrary, async ({ operation, request, mutation }) => {
          runs++
          // The fuzzer deletes and renames what it finds: put the seed back now and then.
          if (runs % 250 === 0) await FuzzServer.seed(server.base, server.token)
          return (await check(operation, apply(request, mutation), mutation)) || KEEP_GOING
        }),
        {
          seed: SEED,
          ...(PATH === undefined ? {} : { path: PATH }),
          numRuns: RUNS ?? 1_000_000,
          ...(SECONDS === undefined ? {} : { interruptAfterTimeLimit: SECONDS * 1000, markInterruptAsFailure: false }),
          // Shrinking resends requests: a few hundred are enough to find the smallest case.
          maxSkipsPerRun: 0,
          endOnFailure: true
        }
      )
      const version = await sendRaw(server.base, "GET", "/api/v1/version", {})
      console.log(`fuzz: ${sent} requests, ${result.numRuns} runs in ${Math.round((Date.now() - started) / 1000)} s, ${failures.length} failures`)
      assert.strictEqual(version.status, 200, "the server still answers /version")
      if (KEEP_GOING) assert.deepStrictEqual([...failures, ...(result.failed ? [String(result.errorInstance)] : [])], [], `seed ${SEED}`)
      if (result.failed) {
        assert.fail(
          `${failures[0] ?? "a request failed"}\n` +
            `replay: KILN_FUZZ_SEED=${result.seed} KILN_FUZZ_PATH=${result.counterexamplePath ?? ""} npx --yes pnpm@12.21.0 test:fuzz` +
            (result.errorInstance instanceof Error ? `\n${result.errorInstance.message}` : "")
        )
      }
    } finally {
      agent.destroy()
      await server.stop()
    }
  })
})
