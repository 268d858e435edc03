/**
 * A webhook receiver on a real socket (127.0.0.1, port 0) that records every request as it came
 * (raw header names and values, the body as bytes) and answers what the test scripts: a status per
 * request in order, or no answer at all.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { Effect } from "effect"

export interface ReceivedRequest {
  readonly method: string
  readonly url: string
  /** Lower-cased names; repeated headers joined with ", " as node does. */
  readonly headers: Readonly<Record<string, string>>
  readonly rawHeaders: ReadonlyArray<string>
  readonly body: string
  /** When it arrived (Date.now()). */
  readonly at: number
}

/** What to answer: a status, or `hang` to never answer. */
export type Answer = number | "hang"

export interface HookReceiver {
  readonly url: string
  readonly received: Array<ReceivedRequest>
  /** Answers for the next requests, in order; once used up, 200. */
  readonly answers: Array<Answer>
  /** Waits until at least `count` requests arrived (fails after `timeout` ms). */
  readonly waitFor: (count: number, timeout?: number) => Effect.Effect<ReadonlyArray<ReceivedRequest>>
}

const headersOf = (request: IncomingMessage): Record<string, string> =>
  Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(", ") : value ?? ""]))

/** A receiver closed with the scope. */
export const makeHookReceiver = Effect.acquireRelease(
  Effect.promise(() =>
    new Promise<{ receiver: HookReceiver; close: () => Promise<void> }>((resolve) => {
      const received: Array<ReceivedRequest> = []
      const answers: Array<Answer> = []
      const hanging: Array<ServerResponse> = []
      const server = createServer((request, response) => {
        const chunks: Array<Buffer> = []
        request.on("data", (chunk: Buffer) => chunks.push(chunk))
        request.on("end", () => {
          received.push({
            method: request.method ?? "",
            url: request.url ?? "",
            headers: headersOf(request),
            rawHeaders: request.rawHeaders,
            body: Buffer.concat(chunks).toString("utf8"),
            at: Date.now()
          })
          const answer = answers.shift() ?? 200
          if (answer === "hang") {
            hanging.push(response)
            return
          }
          response.writeHead(answer, { "Content-Type": "text/plain", "X-Receiver": "test" })
          response.end(answer >= 200 && answer < 300 ? "thanks" : "try again")
        })
      })
      server.listen(0, "127.0.0.1", () => {
        const { port } = server.address() as AddressInfo
        const receiver: HookReceiver = {
          url: `http://127.0.0.1:${port}/hook`,
          received,
          answers,
          waitFor: (count, timeout = 20_000) =>
            Effect.promise(async () => {
              const deadline = Date.now() + timeout
              while (received.length < count) {
                if (Date.now() > deadline) throw new Error(`receiver got ${received.length} of ${count} requests`)
                await new Promise((wake) => setTimeout(wake, 25))
              }
              return [...received]
            })
        }
        resolve({
          receiver,
          close: () =>
            new Promise<void>((done) => {
              for (const response of hanging) response.destroy()
              server.closeAllConnections()
              server.close(() => done())
            })
        })
      })
    })
  ),
  ({ close }) => Effect.promise(close)
).pipe(Effect.map(({ receiver }) => receiver))
