/**
 * For answers the server keeps per resource and kind of caller (RepositoryAnswers.ts, UserAnswers.ts):
 * asks `path` as each caller, twice over. Every answer is the caller's own (`check`), tagged with the
 * SHA-1 of the body sent, and the second round sends each caller the same dates and bytes as the
 * first: a kept answer served to the wrong caller would show in either round.
 */
import { assert } from "@effect/vitest"
import { Effect } from "effect"
import { createHash } from "node:crypto"
import { type Auth, request, type TestResponse } from "../support/TestServer.ts"

export interface Caller {
  readonly auth: Auth | undefined
}

export const askedTwiceByEach = <C extends Caller>(
  path: string,
  callers: ReadonlyArray<C>,
  check: (answer: TestResponse, caller: C, label: string) => void
) =>
  Effect.gen(function*() {
    const first = new Map<number, string>()
    for (let round = 0; round < 2; round++) {
      for (const [index, caller] of callers.entries()) {
        const answer = yield* request("GET", path, caller.auth === undefined ? {} : { auth: caller.auth })
        const label = `caller ${index}, round ${round + 1}`
        assert.strictEqual(answer.status, 200, `${label}: ${answer.text}`)
        check(answer, caller, label)
        assert.strictEqual(answer.headers.get("etag"), `"${createHash("sha1").update(answer.text).digest("base64url")}"`, label)
        const sent = `${answer.headers.get("last-modified")} ${answer.text}`
        if (round === 0) first.set(index, sent)
        else assert.strictEqual(sent, first.get(index), label)
      }
    }
  })
