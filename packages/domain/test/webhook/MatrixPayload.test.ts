/**
 * Matrix's room messages, with the expected values of Forgejo's services/webhook/matrix_test.go
 * for the events Kiln sends, and the request: PUT to the URL plus the SHA-1 of the body.
 */
import { Effect, Layer } from "effect"
import { Digest, Mac, SecureRandom } from "effect/crypto"
import { describe, expect, it } from "vitest"
import type { Webhook } from "../../src/org/Webhook.ts"
import { marshalIndent } from "../../src/webhook/GoJson.ts"
import { buildHookRequest } from "../../src/webhook/HookRequest.ts"
import { matrixMessage } from "../../src/webhook/payloads/MatrixPayload.ts"

const sha = "2020558fe2e34debb818a514715839cabd25e778"
const repository = { html_url: "http://localhost:3000/test/repo", full_name: "test/repo" }
const sender = { login: "user1" }
const commit = { id: sha, message: "commit message", url: `http://localhost:3000/test/repo/commit/${sha}`, author: { name: "user1" } }
const push = { ref: "refs/heads/test", commits: [commit, commit], total_commits: 2, repository, pusher: sender, sender }
const both = (value: ReturnType<typeof matrixMessage>) => [value.body, value.formatted_body]

describe("Matrix payloads (Forgejo's TestMatrixPayload)", () => {
  it("Create", () => {
    expect(both(matrixMessage("m.text", "create", { ref: "refs/heads/test", ref_type: "branch", repository, sender }))).toEqual([
      "[test/repo:[test](http://localhost:3000/test/repo/src/branch/test)] branch created by user1",
      `[test/repo:<a href="http://localhost:3000/test/repo/src/branch/test">test</a>] branch created by user1`
    ])
  })

  it("Delete", () => {
    expect(both(matrixMessage("m.text", "delete", { ref: "test", ref_type: "branch", repository, sender }))).toEqual([
      "[[test/repo](http://localhost:3000/test/repo):test] branch deleted by user1",
      `[<a href="http://localhost:3000/test/repo">test/repo</a>:test] branch deleted by user1`
    ])
  })

  it("Fork", () => {
    const forkee = { html_url: "http://localhost:3000/test/repo2", full_name: "test/repo2" }
    expect(both(matrixMessage("m.text", "fork", { forkee, repository, sender }))).toEqual([
      "[test/repo2](http://localhost:3000/test/repo2) is forked to [test/repo](http://localhost:3000/test/repo)",
      `<a href="http://localhost:3000/test/repo2">test/repo2</a> is forked to <a href="http://localhost:3000/test/repo">test/repo</a>`
    ])
  })

  it("Push", () => {
    const message = matrixMessage("m.text", "push", push)
    const link = `http://localhost:3000/test/repo/commit/${sha}`
    expect(both(message)).toEqual([
      `[test/repo] user1 pushed 2 commits to test:\n[2020558](${link}): commit message - user1\n[2020558](${link}): commit message - user1`,
      `[test/repo] user1 pushed 2 commits to test:<br><a href="${link}">2020558</a>: commit message - user1<br><a href="${link}">2020558</a>: commit message - user1`
    ])
    expect(message["io.gitea.commits"]).toEqual([commit, commit])
  })

  it("Repository", () => {
    expect(both(matrixMessage("m.text", "repository", { action: "created", repository, sender }))).toEqual([
      "[[test/repo](http://localhost:3000/test/repo)] Repository created by user1",
      `[<a href="http://localhost:3000/test/repo">test/repo</a>] Repository created by user1`
    ])
  })

  it("Release", () => {
    const release = { tag_name: "v1.0" }
    expect(both(matrixMessage("m.text", "release", { action: "published", release, repository, sender }))).toEqual([
      "[test/repo] Release created: [v1.0](http://localhost:3000/test/repo/releases/tag/v1.0) by user1",
      `[test/repo] Release created: <a href="http://localhost:3000/test/repo/releases/tag/v1.0">v1.0</a> by user1`
    ])
  })

  it("is PUT to the hook URL plus the SHA-1 of the body, without the default headers", async () => {
    const hook: Webhook = {
      id: 1, ownerId: undefined, repositoryId: 3, type: "matrix",
      url: "https://matrix.example.com/_matrix/client/v3/rooms/ROOM_ID/send/m.room.message", contentType: "json", events: ["push"],
      branchFilter: "", authorizationHeader: "Bearer syt_token", active: true, isSystemWebhook: false, slack: undefined, createdAt: 0, updatedAt: 0
    }
    const delivery = {
      id: 1, hookId: 1, guid: "g", event: "push" as const, action: "", payload: marshalIndent(push), createdAt: 0, status: "pending",
      statusCode: undefined, deliveredAt: undefined, duration: undefined, attempts: 0, redelivery: false, nextAttemptAt: undefined, follows: undefined
    }
    const built = await Effect.runPromise(buildHookRequest(hook, delivery, "").pipe(
      Effect.provide(Layer.mergeAll(Digest.layerWebCrypto, Mac.layerWebCrypto.pipe(Layer.provide(SecureRandom.layerWebCrypto))))
    ))
    if (built._tag !== "Request") throw new Error("a request expected")
    const body = built.request.body
    const digest = Array.from(new Uint8Array(await crypto.subtle.digest("SHA-1", new TextEncoder().encode(body))), (b) => b.toString(16).padStart(2, "0")).join("")
    expect(built.request.method).toBe("PUT")
    expect(built.request.url).toBe(`${hook.url}/${digest}`)
    expect(built.request.headers).toEqual([["Content-Type", "application/json"], ["Authorization", "Bearer syt_token"]])
    expect(built.recorded.headers).toEqual([["Content-Type", "application/json"], ["Authorization", "Bearer ******"]])
    expect(JSON.parse(body).msgtype).toBe("")
  })
})
