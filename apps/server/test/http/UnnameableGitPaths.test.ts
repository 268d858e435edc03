/**
 * Smart HTTP and LFS paths whose owner or repository no account or repository could be named (a
 * NUL byte, which PostgreSQL's `text` refuses): the repository is unknown, answered as any
 * missing repository (401 with a challenge for an anonymous caller, 404 for a signed-in one),
 * never a 500 from the database. Run on PGlite, and on PostgreSQL with KILN_TEST_DATABASE_URL.
 */
import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { baseUrl, createUser, request } from "../support/TestServer.ts"
import * as TestServer from "../support/TestServer.ts"

const LFS = "application/vnd.git-lfs+json"

const send = (method: string, path: string, options: { readonly authorization?: string; readonly lfs?: unknown } = {}) =>
  Effect.gen(function*() {
    const base = yield* baseUrl
    const headers: Record<string, string> = options.authorization === undefined ? {} : { authorization: options.authorization }
    if (options.lfs !== undefined) {
      headers["accept"] = LFS
      headers["content-type"] = LFS
    }
    const response = yield* Effect.promise(() =>
      fetch(`${base}${path}`, {
        method,
        headers,
        redirect: "manual",
        ...(options.lfs === undefined ? {} : { body: JSON.stringify(options.lfs) })
      }))
    const text = yield* Effect.promise(() => response.text())
    return { status: response.status, text, challenge: response.headers.get("www-authenticate") }
  })

const refs = (owner: string, repo: string, authorization?: string) =>
  send("GET", `/${owner}/${repo}/info/refs?service=git-upload-pack`, authorization === undefined ? {} : { authorization })

const lfsBatch = (owner: string, repo: string, authorization?: string) =>
  send("POST", `/${owner}/${repo}/info/lfs/objects/batch`, {
    lfs: { operation: "download", objects: [] },
    ...(authorization === undefined ? {} : { authorization })
  })

describe("git and LFS paths naming nothing", () => {
  layer(TestServer.layer(), { timeout: "120 seconds" })("served", (it) => {
    it.effect("a NUL in the owner or the repository is a missing repository, not a 500", () =>
      Effect.gen(function*() {
        const alice = yield* createUser("alice")
        const created = yield* request("POST", "/api/v1/user/repos", { auth: alice.auth, json: { name: "pub" } })
        assert.strictEqual(created.status, 201, created.text)
        const { username, password } = alice.auth.basic ?? { username: "", password: "" }
        const signedIn = `Basic ${Buffer.from(`${username}:${password}`).toString("base64")}`

        // The repository is there; what a missing one answers, anonymous and signed in.
        assert.strictEqual((yield* refs("alice", "pub.git")).status, 200)
        const missingRefs = yield* refs("alice", "nothing.git")
        const missingRefsSigned = yield* refs("alice", "nothing.git", signedIn)
        const missingBatch = yield* lfsBatch("alice", "nothing.git")
        const missingBatchSigned = yield* lfsBatch("alice", "nothing.git", signedIn)
        assert.strictEqual(missingRefs.status, 401)
        assert.strictEqual(missingRefsSigned.status, 404)
        assert.strictEqual(missingBatch.status, 401)
        assert.strictEqual(missingBatchSigned.status, 404)

        for (const [owner, repo] of [["alice", "pub%00"], ["alice%00", "pub"], ["alice", "pub%00.git"], ["al%00ice", "p%00ub.git"]] as const) {
          const anonymous = yield* refs(owner, repo)
          assert.strictEqual(anonymous.status, missingRefs.status, `${owner}/${repo}: ${anonymous.text}`)
          assert.strictEqual(anonymous.challenge, missingRefs.challenge)
          assert.strictEqual((yield* refs(owner, repo, signedIn)).status, missingRefsSigned.status, `${owner}/${repo}`)

          const batch = yield* lfsBatch(owner, repo)
          assert.strictEqual(batch.status, missingBatch.status, `${owner}/${repo}: ${batch.text}`)
          assert.strictEqual(batch.text, missingBatch.text)
          assert.strictEqual(batch.challenge, missingBatch.challenge)
          const batchSigned = yield* lfsBatch(owner, repo, signedIn)
          assert.strictEqual(batchSigned.status, missingBatchSigned.status, `${owner}/${repo}: ${batchSigned.text}`)
        }

        // The server still answers (the database is fine).
        assert.strictEqual((yield* request("GET", "/api/v1/repos/alice/pub")).status, 200)
      }))

    it.effect("a NUL in a Basic sign-in's user name is an unknown account, not a 500", () =>
      Effect.gen(function*() {
        const basicAs = (name: string) => `Basic ${Buffer.from(`${name}:some-password`).toString("base64")}`
        for (const [path, asked] of [
          ["/alice/pub/info/refs?service=git-upload-pack", (authorization: string) => refs("alice", "pub", authorization)],
          ["/alice/pub.git/info/lfs/objects/batch", (authorization: string) => lfsBatch("alice", "pub.git", authorization)],
          ["/api/v1/user", (authorization: string) => send("GET", "/api/v1/user", { authorization })]
        ] as const) {
          const unknown = yield* asked(basicAs("nobody"))
          assert.strictEqual(unknown.status, 401, `${path}: ${unknown.text}`)
          const nul = yield* asked(basicAs("ali\u0000ce"))
          assert.strictEqual(nul.status, unknown.status, `${path}: ${nul.text}`)
          assert.strictEqual(nul.challenge, unknown.challenge)
        }
      }))
  })
})
