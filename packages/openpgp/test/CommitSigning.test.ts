import { writeFile } from "node:fs/promises"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option, Schema } from "effect"
import * as openpgp from "openpgp"
import { CommitVerification, notSigned, UnverifiedReason } from "@kiln/domain/signing/CommitVerification"
import { splitSignature, withSignature } from "@kiln/domain/signing/SignedCommitObject"
import { signingKeyFor } from "@kiln/domain/signing/SigningKeyResolution"
import { SigningKeys } from "@kiln/domain/signing/SigningKeys"
import { noSigningKey, SigningKeysLive } from "../src/index.ts"
import type { SigningKeysConfig } from "../src/index.ts"
import { freshGnupgHome, output, runCommand } from "./GitCommandLine.ts"
import { temporaryDirectory } from "./TemporaryDirectory.ts"

const generateIn = (dataDir: string): SigningKeysConfig => ({
  mode: "generate",
  name: "Kiln",
  email: "noreply@kiln.example",
  passphrase: Option.none(),
  dataDir
})

const instanceKey = (config: SigningKeysConfig) =>
  Effect.gen(function*() {
    return yield* SigningKeys
  }).pipe(Effect.provide(SigningKeysLive(config)))

/** A fresh repository and the payload of a root commit with the empty tree, as git would write it. */
const repositoryWithPayload = (message: string) =>
  Effect.gen(function*() {
    const repository = yield* temporaryDirectory("repo")
    output("git", ["init", "-q", repository])
    const tree = output("git", ["mktree"], { cwd: repository }).trim()
    const who = "Kiln <noreply@kiln.example> 1700000000 +0000"
    return { repository, payload: `tree ${tree}\nauthor ${who}\ncommitter ${who}\n\n${message}\n` }
  })

const writeCommit = (repository: string, rawCommit: string) =>
  output("git", ["hash-object", "-t", "commit", "-w", "--stdin"], { cwd: repository, input: rawCommit }).trim()

const importPublicKey = (home: string, armored: string) =>
  output("gpg", ["--batch", "--homedir", home, "--import"], { input: armored })

const verifyCommit = (repository: string, home: string, id: string) =>
  runCommand("git", ["verify-commit", "--raw", id], { cwd: repository, env: { GNUPGHOME: home } })

describe("commits signed with the instance key", () => {
  it.effect("pass git verify-commit with the served public key, and verify() reports them as Forgejo does", () =>
    Effect.gen(function*() {
      const key = yield* instanceKey(generateIn(yield* temporaryDirectory("data")))
      const identity = Option.getOrThrow(key.identity)
      const { repository, payload } = yield* repositoryWithPayload("Initial commit")
      const signature = Option.getOrThrow(yield* key.sign(payload))
      assert.match(signature, /^-----BEGIN PGP SIGNATURE-----\n\n[\s\S]+\n-----END PGP SIGNATURE-----\n$/)
      // A binary-document signature over the bytes as they are: gpg would also accept a text-mode one (it
      // normalises line ends), but Forgejo's verifier hashes the payload unchanged.
      const packets = (yield* Effect.promise(() => openpgp.readSignature({ armoredSignature: signature }))).packets
      assert.deepStrictEqual(packets.map((packet) => packet.signatureType), [openpgp.enums.signature.binary])

      const rawCommit = withSignature(payload, signature)
      const id = writeCommit(repository, rawCommit)
      const home = yield* freshGnupgHome
      importPublicKey(home, yield* key.armoredPublicKey())
      const verification = verifyCommit(repository, home, id)
      assert.strictEqual(verification.status, 0, verification.stderr)
      assert.include(verification.stderr, `[GNUPG:] GOODSIG ${identity.keyId} Kiln <noreply@kiln.example>`)
      assert.include(verification.stderr, `[GNUPG:] VALIDSIG ${identity.fingerprint}`)

      // What git stores is what withSignature wrote, and reading it back gives the signed bytes again.
      const stored = output("git", ["cat-file", "commit", id], { cwd: repository })
      assert.strictEqual(stored, rawCommit)
      assert.deepStrictEqual(splitSignature(stored), { payload, signature: Option.some(signature) })

      assert.deepStrictEqual(yield* key.verify(payload, signature), {
        verified: true,
        reason: `Kiln / ${identity.keyId}`,
        signature,
        signer: { name: "Kiln", email: "noreply@kiln.example", username: "" },
        payload
      })
    }))

  it.effect("fail for a tampered payload, in git and in verify()", () =>
    Effect.gen(function*() {
      const key = yield* instanceKey(generateIn(yield* temporaryDirectory("data")))
      const { repository, payload } = yield* repositoryWithPayload("Initial commit")
      const signature = Option.getOrThrow(yield* key.sign(payload))
      const tampered = payload.replace("Initial commit", "Innocent commit")
      const home = yield* freshGnupgHome
      importPublicKey(home, yield* key.armoredPublicKey())
      const verification = verifyCommit(repository, home, writeCommit(repository, withSignature(tampered, signature)))
      assert.notStrictEqual(verification.status, 0)
      assert.include(verification.stderr, "[GNUPG:] BADSIG")
      assert.deepStrictEqual(yield* key.verify(tampered, signature), {
        verified: false,
        reason: UnverifiedReason.probableBadSignature,
        signature,
        signer: null,
        payload: tampered
      })
    }))

  it.effect("report a signature by an unknown key, an unreadable signature, and any signature when signing is off", () =>
    Effect.gen(function*() {
      const key = yield* instanceKey(generateIn(yield* temporaryDirectory("data")))
      const stranger = yield* instanceKey(generateIn(yield* temporaryDirectory("stranger")))
      const { payload } = yield* repositoryWithPayload("Initial commit")
      const strangersSignature = Option.getOrThrow(yield* stranger.sign(payload))
      const noKey = { verified: false, reason: UnverifiedReason.noKeyFound, signature: strangersSignature, signer: null, payload }
      assert.deepStrictEqual(yield* key.verify(payload, strangersSignature), noKey)
      assert.deepStrictEqual(yield* noSigningKey.verify(payload, strangersSignature), noKey)
      assert.deepStrictEqual(yield* key.verify(payload, "not a signature\n"), {
        verified: false,
        reason: UnverifiedReason.extractSign,
        signature: "not a signature\n",
        signer: null,
        payload
      })
    }))
})

describe("the Forgejo shapes", () => {
  it("an unsigned commit: not verified, gpg.error.not_signed_commit, empty signature and payload, no signer", () => {
    assert.strictEqual(
      JSON.stringify(Schema.encodeSync(CommitVerification)(notSigned)),
      `{"verified":false,"reason":"gpg.error.not_signed_commit","signature":"","signer":null,"payload":""}`
    )
  })

  it.effect("every repository resolves to the instance key", () =>
    Effect.gen(function*() {
      const key = yield* instanceKey(generateIn(yield* temporaryDirectory("data")))
      assert.strictEqual(signingKeyFor(key, { owner: "alice", name: "demo" }), key)
      assert.strictEqual(signingKeyFor(noSigningKey, { owner: "org", name: "other" }), noSigningKey)
    }))
})

describe("a key made by gpg", () => {
  it.effect("loads from its exported file, verifies commits git signed with it, and signs commits gpg accepts", () =>
    Effect.gen(function*() {
      const home = yield* freshGnupgHome
      const gpgHome = { GNUPGHOME: home }
      output("gpg", ["--batch", "--passphrase", "", "--quick-gen-key", "Operator <ops@kiln.example>", "ed25519", "sign", "never"], {
        env: gpgHome
      })
      const fingerprint = output("gpg", ["--batch", "--with-colons", "--list-secret-keys"], { env: gpgHome })
        .split("\n")
        .find((line) => line.startsWith("fpr:"))
        ?.split(":")[9] ?? ""
      assert.match(fingerprint, /^[0-9A-F]{40}$/)
      const keyFile = join(yield* temporaryDirectory("keyfile"), "operator.asc")
      yield* Effect.promise(() => writeFile(keyFile, output("gpg", ["--batch", "--armor", "--export-secret-keys"], { env: gpgHome })))
      const key = yield* instanceKey({ ...generateIn("/nonexistent"), mode: { path: keyFile } })
      assert.strictEqual(Option.getOrThrow(key.identity).fingerprint, fingerprint)

      // A commit signed by git itself (git -> gpg), read back as Forgejo reads it.
      const { repository } = yield* repositoryWithPayload("unused")
      const tree = output("git", ["mktree"], { cwd: repository }).trim()
      const gitSigned = output("git", ["-c", `user.signingkey=${fingerprint}`, "commit-tree", "-S", "-m", "signed by git", tree], {
        cwd: repository,
        env: {
          ...gpgHome,
          GIT_AUTHOR_NAME: "Operator",
          GIT_AUTHOR_EMAIL: "ops@kiln.example",
          GIT_COMMITTER_NAME: "Operator",
          GIT_COMMITTER_EMAIL: "ops@kiln.example"
        }
      }).trim()
      const { payload, signature } = splitSignature(output("git", ["cat-file", "commit", gitSigned], { cwd: repository }))
      const verification = yield* key.verify(payload, Option.getOrThrow(signature))
      assert.isTrue(verification.verified)
      assert.strictEqual(verification.reason, `Kiln / ${fingerprint.slice(-16)}`)

      // And the other way round: our signature, checked by gpg against the key's own keyring.
      const ours = yield* repositoryWithPayload("signed by kiln")
      const id = writeCommit(ours.repository, withSignature(ours.payload, Option.getOrThrow(yield* key.sign(ours.payload))))
      const result = verifyCommit(ours.repository, home, id)
      assert.strictEqual(result.status, 0, result.stderr)
      assert.include(result.stderr, `[GNUPG:] VALIDSIG ${fingerprint}`)
    }))
})
