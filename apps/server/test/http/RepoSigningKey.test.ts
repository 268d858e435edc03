/**
 * The repository signing key (api-facts §6) and instance-signed initial commits end to end: the
 * Branch JSON shows them verified, and stock git verifies a clone's HEAD with the served key.
 */
import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { execFile } from "node:child_process"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { at, baseUrl, createUser, request } from "../support/TestServer.ts"
import * as TestServer from "../support/TestServer.ts"
import { cloneUrl, makeGitClient } from "./GitClient.ts"

/** A GNUPGHOME of its own, removed with the scope. */
const gnupgHome = Effect.acquireRelease(
  Effect.promise(() => mkdtemp(join(tmpdir(), "kiln-gnupg-"))),
  (home) => Effect.promise(() => rm(home, { recursive: true, force: true }))
)

const gpgImport = (home: string, armored: string) =>
  Effect.promise(() =>
    new Promise<{ code: number; stderr: string }>((resolve) => {
      const child = execFile("/usr/bin/gpg", ["--batch", "--homedir", home, "--import"], (error, _stdout, stderr) =>
        resolve({ code: error === null ? 0 : 1, stderr }))
      child.stdin?.end(armored)
    })
  )

describe("repository signing key", () => {
  layer(TestServer.layer({ signingKey: "generate", signingName: "Kiln Signer", signingEmail: "signer@kiln.test" }), {
    timeout: "300 seconds"
  })("with a generated instance key", (it) => {
    it.effect("serves the instance key for readable repositories and 404 for hidden ones", () =>
      Effect.gen(function*() {
        const alice = yield* createUser("alice")
        yield* request("POST", "/api/v1/user/repos", { auth: alice.auth, json: { name: "open" } })
        yield* request("POST", "/api/v1/user/repos", { auth: alice.auth, json: { name: "closed", private: true } })
        const instance = yield* request("GET", "/api/v1/signing-key.gpg")
        const open = yield* request("GET", "/api/v1/repos/alice/open/signing-key.gpg")
        assert.strictEqual(open.status, 200)
        assert.match(open.headers.get("content-type") ?? "", /^text\/plain/)
        assert.match(open.text, /^-----BEGIN PGP PUBLIC KEY BLOCK-----/)
        assert.strictEqual(open.text, instance.text)
        assert.strictEqual((yield* request("GET", "/api/v1/repos/alice/closed/signing-key.gpg")).status, 404)
        assert.strictEqual((yield* request("GET", "/api/v1/repos/alice/closed/signing-key.gpg", { auth: alice.auth })).status, 200)
        assert.strictEqual((yield* request("GET", "/api/v1/repos/alice/missing/signing-key.gpg")).status, 404)
      }))

    it.effect("signs auto-init commits: the branch shows the signer, and git verifies the clone's HEAD with the served key", () =>
      Effect.scoped(Effect.gen(function*() {
        const bob = yield* createUser("bob")
        const made = yield* request("POST", "/api/v1/user/repos", { auth: bob.auth, json: { name: "signed", auto_init: true } })
        assert.strictEqual(made.status, 201, made.text)

        const branch = yield* request("GET", "/api/v1/repos/bob/signed/branches/main")
        assert.strictEqual(branch.status, 200, branch.text)
        const verification = at(branch.body, "commit", "verification")
        assert.strictEqual(at(verification, "verified"), true)
        assert.match(String(at(verification, "reason")), /^Kiln Signer \/ [0-9A-F]{16}$/)
        assert.deepStrictEqual(at(verification, "signer"), { name: "Kiln Signer", email: "signer@kiln.test", username: "" })
        assert.match(String(at(verification, "signature")), /^-----BEGIN PGP SIGNATURE-----/)
        assert.match(String(at(verification, "payload")), /^tree [0-9a-f]{40}\n/)
        assert.strictEqual(at(branch.body, "commit", "committer", "email"), "signer@kiln.test")
        const listed = yield* request("GET", "/api/v1/repos/bob/signed/branches")
        assert.deepStrictEqual(at(listed.body, 0, "commit", "verification"), verification)

        const client = yield* makeGitClient
        const work = client.path("signed")
        yield* client.git(["clone", "-q", cloneUrl(yield* baseUrl, "bob", "signed"), work])
        const home = yield* gnupgHome
        const key = yield* request("GET", "/api/v1/signing-key.gpg")
        const imported = yield* gpgImport(home, key.text)
        assert.strictEqual(imported.code, 0, imported.stderr)
        const verified = yield* client.run(["verify-commit", "--raw", "HEAD"], { cwd: work, env: { GNUPGHOME: home } })
        assert.strictEqual(verified.code, 0, verified.stderr)
        assert.include(verified.stderr, "GOODSIG")
        // An unsigned commit does not pass: the check above can fail.
        yield* client.git(["commit", "-q", "--allow-empty", "-m", "unsigned"], { cwd: work })
        const unsigned = yield* client.run(["verify-commit", "HEAD"], { cwd: work, env: { GNUPGHOME: home } })
        assert.notStrictEqual(unsigned.code, 0)
      })))
  })

  layer(TestServer.layer({ signingKey: "none" }), { timeout: "120 seconds" })("with signing off", (it) => {
    it.effect("answers 200 with an empty body, and initial commits are unsigned", () =>
      Effect.gen(function*() {
        const carol = yield* createUser("carol")
        yield* request("POST", "/api/v1/user/repos", { auth: carol.auth, json: { name: "plain", auto_init: true } })
        const key = yield* request("GET", "/api/v1/repos/carol/plain/signing-key.gpg")
        assert.deepStrictEqual([key.status, key.text], [200, ""])
        const branch = yield* request("GET", "/api/v1/repos/carol/plain/branches/main")
        assert.strictEqual(at(branch.body, "commit", "verification", "reason"), "gpg.error.not_signed_commit")
      }))
  })
})
