import { readdir, readFile, stat, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option, Redacted } from "effect"
import * as openpgp from "openpgp"
import { SigningKeys } from "@kiln/domain/signing/SigningKeys"
import { generatedKeyPath, SigningKeysLive } from "../src/index.ts"
import type { SigningKeyMode, SigningKeysConfig } from "../src/index.ts"
import { temporaryDirectory } from "./TemporaryDirectory.ts"

const configFor = (dataDir: string, mode: SigningKeyMode, passphrase?: string): SigningKeysConfig => ({
  mode,
  name: "Kiln",
  email: "noreply@kiln.example",
  passphrase: passphrase === undefined ? Option.none() : Option.some(Redacted.make(passphrase)),
  dataDir
})

const instanceKey = (config: SigningKeysConfig) =>
  Effect.gen(function*() {
    return yield* SigningKeys
  }).pipe(Effect.provide(SigningKeysLive(config)))

const startupFailure = (config: SigningKeysConfig) => Effect.flip(instanceKey(config))

/** An armored private key made by openpgp itself, optionally passphrase-protected. */
const keyFixture = (directory: string, passphrase?: string) =>
  Effect.promise(async () => {
    const { privateKey, publicKey } = await openpgp.generateKey({
      type: "ecc",
      curve: "ed25519Legacy",
      userIDs: [{ name: "Fixture", email: "fixture@kiln.example" }],
      format: "armored",
      ...(passphrase === undefined ? {} : { passphrase })
    })
    const path = join(directory, passphrase === undefined ? "plain.asc" : "protected.asc")
    await writeFile(path, privateKey)
    const fingerprint = (await openpgp.readKey({ armoredKey: publicKey })).getFingerprint().toUpperCase()
    return { path, publicKey, fingerprint }
  })

describe("SigningKeysLive, generate", () => {
  it.effect("creates a key on first start and reuses it on the next (same fingerprint)", () =>
    Effect.gen(function*() {
      const dataDir = yield* temporaryDirectory("generate")
      const first = yield* instanceKey(configFor(dataDir, "generate"))
      const second = yield* instanceKey(configFor(dataDir, "generate"))
      const firstIdentity = Option.getOrThrow(first.identity)
      assert.match(firstIdentity.fingerprint, /^[0-9A-F]{40}$/)
      assert.strictEqual(firstIdentity.keyId, firstIdentity.fingerprint.slice(-16))
      assert.deepStrictEqual(second.identity, first.identity)
      assert.strictEqual(yield* second.armoredPublicKey(), yield* first.armoredPublicKey())
    }))

  it.effect("starts together on one data directory generate one key that all of them use", () =>
    Effect.gen(function*() {
      const dataDir = yield* temporaryDirectory("generate-race")
      const keys = yield* Effect.all(Array.from({ length: 4 }, () => instanceKey(configFor(dataDir, "generate"))), {
        concurrency: "unbounded"
      })
      const fingerprints = new Set(keys.map((key) => Option.getOrThrow(key.identity).fingerprint))
      assert.strictEqual(fingerprints.size, 1)
      const onDisk = yield* instanceKey(configFor(dataDir, "generate"))
      assert.isTrue(fingerprints.has(Option.getOrThrow(onDisk.identity).fingerprint))
      assert.deepStrictEqual(yield* Effect.promise(() => readdir(dataDir)), ["signing-key.asc"])
    }))

  it.effect("keeps the private key in <dataDir>/signing-key.asc with mode 0600 and leaves no temporary file", () =>
    Effect.gen(function*() {
      const dataDir = yield* temporaryDirectory("generate-mode")
      yield* instanceKey(configFor(dataDir, "generate"))
      const path = generatedKeyPath(dataDir)
      assert.strictEqual(path, join(dataDir, "signing-key.asc"))
      assert.strictEqual((yield* Effect.promise(() => stat(path))).mode & 0o777, 0o600)
      assert.deepStrictEqual(yield* Effect.promise(() => readdir(dataDir)), ["signing-key.asc"])
      const text = yield* Effect.promise(() => readFile(path, "utf8"))
      assert.isTrue(text.startsWith("-----BEGIN PGP PRIVATE KEY BLOCK-----"))
    }))

  it.effect("creates a missing data directory", () =>
    Effect.gen(function*() {
      const dataDir = join(yield* temporaryDirectory("generate-nested"), "a", "b")
      const key = yield* instanceKey(configFor(dataDir, "generate"))
      assert.isTrue(Option.isSome(key.identity))
      assert.strictEqual((yield* Effect.promise(() => stat(generatedKeyPath(dataDir)))).mode & 0o777, 0o600)
    }))

  it.effect("serves an armored public Ed25519 key that openpgp parses and that carries the configured user id", () =>
    Effect.gen(function*() {
      const dataDir = yield* temporaryDirectory("generate-armor")
      const key = yield* instanceKey(configFor(dataDir, "generate"))
      const armored = yield* key.armoredPublicKey()
      assert.isTrue(armored.startsWith("-----BEGIN PGP PUBLIC KEY BLOCK-----"))
      const parsed = yield* Effect.promise(() => openpgp.readKey({ armoredKey: armored }))
      assert.isFalse(parsed.isPrivate())
      assert.deepStrictEqual(parsed.getUserIDs(), ["Kiln <noreply@kiln.example>"])
      assert.strictEqual(parsed.getFingerprint().toUpperCase(), Option.getOrThrow(key.identity).fingerprint)
      // EdDSA (22) over Ed25519: the encoding gpg 2.2 understands.
      assert.strictEqual(parsed.getAlgorithmInfo().algorithm, "eddsaLegacy")
      assert.strictEqual(parsed.getAlgorithmInfo().curve, "ed25519Legacy")
    }))

  it.effect("reuses the key file even when the configured name changes, and signs as the configured identity", () =>
    Effect.gen(function*() {
      const dataDir = yield* temporaryDirectory("generate-rename")
      const first = yield* instanceKey(configFor(dataDir, "generate"))
      const renamed = yield* instanceKey({ ...configFor(dataDir, "generate"), name: "Forge", email: "bot@kiln.example" })
      const identity = Option.getOrThrow(renamed.identity)
      assert.strictEqual(identity.fingerprint, Option.getOrThrow(first.identity).fingerprint)
      assert.strictEqual(identity.name, "Forge")
      assert.strictEqual(identity.email, "bot@kiln.example")
    }))

  it.effect("fails with one line naming the path when the key file cannot be created", () =>
    Effect.gen(function*() {
      // sysfs refuses new directories even for root.
      const error = yield* startupFailure(configFor("/sys/kiln-data", "generate"))
      assert.strictEqual(error._tag, "SigningKeyStartupFailed")
      assert.strictEqual(error.path, "/sys/kiln-data/signing-key.asc")
      assert.match(error.message, /^Signing key \/sys\/kiln-data\/signing-key\.asc: cannot create the key file \(E/)
      assert.notInclude(error.message, "\n")
    }))

  it.effect("fails with one line naming the path when the data directory is a file", () =>
    Effect.gen(function*() {
      const directory = yield* temporaryDirectory("generate-blocked")
      const blocker = join(directory, "not-a-directory")
      yield* Effect.promise(() => writeFile(blocker, "x"))
      const error = yield* startupFailure(configFor(blocker, "generate"))
      assert.strictEqual(error.message.split(": ")[0], `Signing key ${join(blocker, "signing-key.asc")}`)
      assert.match(error.message, /cannot read the file \(ENOTDIR/)
      assert.notInclude(error.message, "\n")
    }))

  it.effect("fails when the stored key file is not a private key", () =>
    Effect.gen(function*() {
      const dataDir = yield* temporaryDirectory("generate-corrupt")
      yield* Effect.promise(() => writeFile(generatedKeyPath(dataDir), "garbage", { mode: 0o600 }))
      const error = yield* startupFailure(configFor(dataDir, "generate"))
      assert.match(error.message, /signing-key\.asc: not an ASCII-armored OpenPGP private key/)
      assert.notInclude(error.message, "\n")
    }))
})

describe("SigningKeysLive, a key file", () => {
  it.effect("loads an unprotected key", () =>
    Effect.gen(function*() {
      const directory = yield* temporaryDirectory("file-plain")
      const fixture = yield* keyFixture(directory)
      const key = yield* instanceKey(configFor(directory, { path: fixture.path }))
      const identity = Option.getOrThrow(key.identity)
      assert.strictEqual(identity.fingerprint, fixture.fingerprint)
      assert.strictEqual(identity.name, "Kiln")
      const armored = yield* key.armoredPublicKey()
      const served = yield* Effect.promise(() => openpgp.readKey({ armoredKey: armored }))
      assert.strictEqual(served.getFingerprint().toUpperCase(), fixture.fingerprint)
      assert.deepStrictEqual(served.getUserIDs(), ["Fixture <fixture@kiln.example>"])
      // An unprotected key ignores a configured passphrase.
      const alsoLoaded = yield* instanceKey(configFor(directory, { path: fixture.path }, "unused"))
      assert.deepStrictEqual(alsoLoaded.identity, key.identity)
    }))

  it.effect("loads a passphrase-protected key with the right passphrase", () =>
    Effect.gen(function*() {
      const directory = yield* temporaryDirectory("file-protected")
      const fixture = yield* keyFixture(directory, "correct horse")
      const key = yield* instanceKey(configFor(directory, { path: fixture.path }, "correct horse"))
      assert.strictEqual(Option.getOrThrow(key.identity).fingerprint, fixture.fingerprint)
      assert.isTrue(Option.isSome(yield* key.sign("tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n\nx\n")))
    }))

  it.effect("refuses a wrong passphrase", () =>
    Effect.gen(function*() {
      const directory = yield* temporaryDirectory("file-wrong")
      const fixture = yield* keyFixture(directory, "correct horse")
      const error = yield* startupFailure(configFor(directory, { path: fixture.path }, "battery staple"))
      assert.strictEqual(error.message, `Signing key ${fixture.path}: wrong passphrase`)
    }))

  it.effect("refuses a protected key when no passphrase is configured", () =>
    Effect.gen(function*() {
      const directory = yield* temporaryDirectory("file-nopass")
      const fixture = yield* keyFixture(directory, "correct horse")
      const error = yield* startupFailure(configFor(directory, { path: fixture.path }))
      assert.strictEqual(error.message, `Signing key ${fixture.path}: the key is protected by a passphrase, but none is configured`)
    }))

  it.effect("refuses a missing file", () =>
    Effect.gen(function*() {
      const path = join(yield* temporaryDirectory("file-missing"), "nope.asc")
      const error = yield* startupFailure(configFor("/nonexistent", { path }))
      assert.strictEqual(error.path, path)
      assert.strictEqual(error.message, `Signing key ${path}: file not found`)
    }))

  it.effect("refuses a path it cannot read as a file", () =>
    Effect.gen(function*() {
      const path = yield* temporaryDirectory("file-directory")
      const error = yield* startupFailure(configFor("/nonexistent", { path }))
      assert.match(error.message, new RegExp(`^Signing key ${path}: cannot read the file \\(EISDIR`))
    }))

  it.effect("refuses a public key", () =>
    Effect.gen(function*() {
      const directory = yield* temporaryDirectory("file-public")
      const fixture = yield* keyFixture(directory)
      const path = join(directory, "public.asc")
      yield* Effect.promise(() => writeFile(path, fixture.publicKey))
      const error = yield* startupFailure(configFor(directory, { path }))
      assert.match(error.message, new RegExp(`^Signing key ${path}: not an ASCII-armored OpenPGP private key \\(`))
      assert.notInclude(error.message, "\n")
    }))
})

describe("SigningKeysLive, none", () => {
  it.effect("has no identity, serves an empty key and signs nothing", () =>
    Effect.gen(function*() {
      const key = yield* instanceKey(configFor("/nonexistent", "none"))
      assert.isTrue(Option.isNone(key.identity))
      assert.strictEqual(yield* key.armoredPublicKey(), "")
      assert.isTrue(Option.isNone(yield* key.sign("tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n\nx\n")))
    }))
})
