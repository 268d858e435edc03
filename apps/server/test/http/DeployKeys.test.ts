import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { admin, at, createToken, createUser, request, ROOT_URL } from "../support/TestServer.ts"
import * as TestServer from "../support/TestServer.ts"

/** A real key pair from ssh-keygen, with the fingerprint ssh-keygen prints. */
const sshKey = (comment: string) => {
  const dir = mkdtempSync(join(tmpdir(), "kiln-deploy-key-"))
  const file = join(dir, "key")
  execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", file])
  const publicKey = readFileSync(`${file}.pub`, "utf8").trim()
  const fingerprint = execFileSync("ssh-keygen", ["-lf", `${file}.pub`], { encoding: "utf8" }).split(" ")[1]
  return { publicKey, fingerprint }
}

layer(TestServer.layer(), { timeout: "120 seconds" })("deploy keys", (it) => {
  it.effect("are added, listed, read and deleted by repository admins with Forgejo's JSON", () =>
    Effect.gen(function*() {
      const owner = yield* createUser("dk-owner")
      yield* request("POST", "/api/v1/user/repos", { auth: owner.auth, json: { name: "app" } })
      const key = sshKey("ci@build")
      const created = yield* request("POST", "/api/v1/repos/dk-owner/app/keys", {
        auth: owner.auth,
        json: { title: "ci", key: key.publicKey, read_only: true }
      })
      assert.strictEqual(created.status, 201)
      const id = Number(at(created.body, "id"))
      assert.deepStrictEqual(Object.keys(created.body as object).sort(), [
        "created_at", "fingerprint", "id", "key", "key_id", "read_only", "title", "url"
      ])
      assert.strictEqual(at(created.body, "url"), `${ROOT_URL}api/v1/repos/dk-owner/app/keys/${id}`)
      assert.strictEqual(at(created.body, "fingerprint"), key.fingerprint)
      assert.strictEqual(at(created.body, "key"), key.publicKey)
      assert.strictEqual(at(created.body, "read_only"), true)

      // The owner sees the private information: the repository with the key's permission.
      const got = yield* request("GET", `/api/v1/repos/dk-owner/app/keys/${id}`, { auth: owner.auth })
      assert.strictEqual(got.status, 200)
      assert.strictEqual(at(got.body, "repository", "full_name"), "dk-owner/app")
      assert.deepStrictEqual(at(got.body, "repository", "permissions"), { admin: false, push: false, pull: true })

      const listed = yield* request("GET", "/api/v1/repos/dk-owner/app/keys", { auth: owner.auth })
      assert.strictEqual(listed.status, 200)
      assert.strictEqual(listed.headers.get("x-total-count"), "1")
      assert.strictEqual(at(listed.body, 0, "id"), id)
      const byFingerprint = yield* request("GET", `/api/v1/repos/dk-owner/app/keys?fingerprint=${encodeURIComponent(key.fingerprint)}`, { auth: owner.auth })
      assert.strictEqual((byFingerprint.body as Array<unknown>).length, 1)
      const byOtherKeyId = yield* request("GET", `/api/v1/repos/dk-owner/app/keys?key_id=${Number(at(created.body, "key_id")) + 1000}`, { auth: owner.auth })
      assert.deepStrictEqual(byOtherKeyId.body, [])

      assert.strictEqual((yield* request("DELETE", `/api/v1/repos/dk-owner/app/keys/${id}`, { auth: owner.auth })).status, 204)
      assert.strictEqual((yield* request("GET", `/api/v1/repos/dk-owner/app/keys/${id}`, { auth: owner.auth })).status, 404)
      // Forgejo deletes an unknown key without complaint.
      assert.strictEqual((yield* request("DELETE", `/api/v1/repos/dk-owner/app/keys/${id}`, { auth: owner.auth })).status, 204)
    }))

  it.effect("refuse what Forgejo refuses with 422", () =>
    Effect.gen(function*() {
      const owner = yield* createUser("dk-rules")
      yield* request("POST", "/api/v1/user/repos", { auth: owner.auth, json: { name: "one" } })
      yield* request("POST", "/api/v1/user/repos", { auth: owner.auth, json: { name: "two" } })
      const key = sshKey("shared")
      const add = (repo: string, json: Record<string, unknown>) =>
        request("POST", `/api/v1/repos/dk-rules/${repo}/keys`, { auth: owner.auth, json })
      const first = yield* add("one", { title: "deploy", key: key.publicKey })
      assert.strictEqual(first.status, 201)
      assert.strictEqual(at(first.body, "read_only"), false)

      const again = yield* add("one", { title: "other title", key: key.publicKey })
      assert.strictEqual(again.status, 422)
      assert.strictEqual(at(again.body, "message"), "This key has already been added to this repository")
      const sameTitle = yield* add("one", { title: "deploy", key: sshKey("another").publicKey })
      assert.strictEqual(sameTitle.status, 422)
      assert.strictEqual(at(sameTitle.body, "message"), "A key with the same name already exists")
      const malformed = yield* add("one", { title: "bad", key: "ssh-ed25519 AAAA!!!" })
      assert.strictEqual(malformed.status, 422)
      assert.match(String(at(malformed.body, "message")), /^Invalid key content: /)
      assert.strictEqual((yield* add("one", { key: key.publicKey })).status, 422)

      // One key may open several repositories: the same key_id.
      const second = yield* add("two", { title: "deploy", key: key.publicKey })
      assert.strictEqual(second.status, 201)
      assert.strictEqual(at(second.body, "key_id"), at(first.body, "key_id"))
      // A key of another repository is not found through this one.
      assert.strictEqual((yield* request("GET", `/api/v1/repos/dk-rules/one/keys/${Number(at(second.body, "id"))}`, { auth: owner.auth })).status, 404)

      // A deploy key is never an account's key, and back.
      const asUserKey = yield* request("POST", "/api/v1/admin/users/dk-rules/keys", { auth: admin, json: { title: "mine", key: key.publicKey } })
      assert.strictEqual(asUserKey.status, 422)
      assert.strictEqual(at(asUserKey.body, "message"), "Key content has been used as non-deploy key")
      const userKey = sshKey("laptop")
      assert.strictEqual((yield* request("POST", "/api/v1/admin/users/dk-rules/keys", { auth: admin, json: { title: "laptop", key: userKey.publicKey } })).status, 201)
      const asDeployKey = yield* add("one", { title: "laptop", key: userKey.publicKey })
      assert.strictEqual(asDeployKey.status, 422)
      assert.strictEqual(at(asDeployKey.body, "message"), "Key content has been used as non-deploy key")
      // The same key with another comment is the same key.
      const recommented = `${userKey.publicKey.split(" ").slice(0, 2).join(" ")} other-comment`
      assert.strictEqual((yield* add("one", { title: "laptop2", key: recommented })).status, 422)
      // Deploy keys are no account's keys.
      const userKeys = yield* request("GET", "/api/v1/users/dk-rules/keys", { auth: owner.auth })
      assert.deepStrictEqual((userKeys.body as Array<unknown>).map((item) => at(item, "title")), ["laptop"])
    }))

  it.effect("are for repository admins, with the repository token scope", () =>
    Effect.gen(function*() {
      const owner = yield* createUser("dk-gate")
      const writer = yield* createUser("dk-writer")
      yield* request("POST", "/api/v1/user/repos", { auth: owner.auth, json: { name: "gated" } })
      yield* request("PUT", "/api/v1/repos/dk-gate/gated/collaborators/dk-writer", { auth: owner.auth, json: { permission: "write" } })
      assert.strictEqual((yield* request("GET", "/api/v1/repos/dk-gate/gated/keys")).status, 401)
      assert.strictEqual((yield* request("POST", "/api/v1/repos/dk-gate/gated/keys", { json: { title: "x", key: "x" } })).status, 401)
      assert.strictEqual((yield* request("GET", "/api/v1/repos/dk-gate/gated/keys/1")).status, 401)
      assert.strictEqual((yield* request("DELETE", "/api/v1/repos/dk-gate/gated/keys/1")).status, 401)
      const refused = yield* request("GET", "/api/v1/repos/dk-gate/gated/keys", { auth: writer.auth })
      assert.strictEqual(refused.status, 403)
      assert.strictEqual(at(refused.body, "message"), "user should be an owner or a collaborator with admin write of a repository")
      assert.strictEqual((yield* request("GET", "/api/v1/repos/dk-gate/nothing/keys", { auth: owner.auth })).status, 404)

      const created = yield* request("POST", "/api/v1/repos/dk-gate/gated/keys", { auth: owner.auth, json: { title: "k", key: sshKey("k").publicKey } })
      assert.strictEqual(created.status, 201)
      // Deleting needs admin rights on the key's repository.
      assert.strictEqual((yield* request("DELETE", `/api/v1/repos/dk-gate/gated/keys/${Number(at(created.body, "id"))}`, { auth: writer.auth })).status, 403)

      const readToken = yield* createToken(owner.auth, "dk-gate", "read", ["read:repository"])
      assert.strictEqual((yield* request("GET", "/api/v1/repos/dk-gate/gated/keys", { auth: { token: readToken } })).status, 200)
      const post = yield* request("POST", "/api/v1/repos/dk-gate/gated/keys", { auth: { token: readToken }, json: { title: "t", key: sshKey("t").publicKey } })
      assert.strictEqual(post.status, 403)
      const userToken = yield* createToken(owner.auth, "dk-gate", "user", ["write:user"])
      assert.strictEqual((yield* request("GET", "/api/v1/repos/dk-gate/gated/keys", { auth: { token: userToken } })).status, 403)
    }))

  it.effect("appear in the served Swagger document under Forgejo's operation ids", () =>
    Effect.gen(function*() {
      const document = (yield* request("GET", "/swagger.v1.json")).body
      assert.strictEqual(at(document, "paths", "/repos/{owner}/{repo}/keys", "get", "operationId"), "repoListKeys")
      assert.strictEqual(at(document, "paths", "/repos/{owner}/{repo}/keys", "post", "operationId"), "repoCreateKey")
      assert.strictEqual(at(document, "paths", "/repos/{owner}/{repo}/keys/{id}", "get", "operationId"), "repoGetKey")
      assert.strictEqual(at(document, "paths", "/repos/{owner}/{repo}/keys/{id}", "delete", "operationId"), "repoDeleteKey")
      assert.notStrictEqual(at(document, "definitions", "DeployKey"), undefined)
    }))
})
