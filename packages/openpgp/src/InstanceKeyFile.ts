/**
 * Getting the instance's private key at start-up: generated once into the data directory, or read from an
 * operator-provided file. Every failure becomes a one-line `SigningKeyStartupFailed` naming the file.
 */
import { randomBytes } from "node:crypto"
import { link, mkdir, open, readFile, rm } from "node:fs/promises"
import { join } from "node:path"
import { Effect, Option, Redacted } from "effect"
import * as openpgp from "openpgp"
import { SigningKeyStartupFailed } from "./SigningKeyStartupFailed.ts"

/** Where `generate` keeps the key. */
export const generatedKeyPath = (dataDir: string): string => join(dataDir, "signing-key.asc")

const failure = (path: string, what: string) => new SigningKeyStartupFailed({ path, message: `Signing key ${path}: ${what}` })

const reason = (cause: unknown): string => (cause instanceof Error ? cause.message : String(cause)).split("\n")[0] ?? ""

const fileErrorCode = (cause: unknown): string | undefined =>
  typeof cause === "object" && cause !== null && "code" in cause && typeof cause.code === "string" ? cause.code : undefined

/** The file's text, or none when there is no such file. */
const readIfPresent = (path: string) =>
  Effect.tryPromise({
    try: () =>
      readFile(path, "utf8").then(
        (text) => Option.some(text),
        (cause: unknown) => (fileErrorCode(cause) === "ENOENT" ? Option.none<string>() : Promise.reject(cause))
      ),
    catch: (cause) => failure(path, `cannot read the file (${reason(cause)})`)
  })

/** Parses, decrypts when needed, and checks that the key can sign today. */
const usableKey = (path: string, armored: string, passphrase: Option.Option<Redacted.Redacted<string>>) =>
  Effect.gen(function*() {
    const key = yield* Effect.tryPromise({
      try: () => openpgp.readPrivateKey({ armoredKey: armored }),
      catch: (cause) => failure(path, `not an ASCII-armored OpenPGP private key (${reason(cause)})`)
    })
    const decrypted = key.isDecrypted()
      ? key
      : yield* Option.match(passphrase, {
        onNone: () => Effect.fail(failure(path, "the key is protected by a passphrase, but none is configured")),
        onSome: (secret) =>
          Effect.tryPromise({
            try: () => openpgp.decryptKey({ privateKey: key, passphrase: Redacted.value(secret) }),
            catch: (cause) =>
              failure(path, /passphrase/i.test(reason(cause)) ? "wrong passphrase" : `cannot decrypt the key (${reason(cause)})`)
          })
      })
    yield* Effect.tryPromise({
      try: () => decrypted.getSigningKey(),
      catch: (cause) => failure(path, `the key cannot sign (${reason(cause)})`)
    })
    return decrypted
  })

/** Reads an operator-provided key file. */
export const loadProvidedKey = (path: string, passphrase: Option.Option<Redacted.Redacted<string>>) =>
  readIfPresent(path).pipe(
    Effect.flatMap(Option.match({
      onNone: () => Effect.fail(failure(path, "file not found")),
      onSome: (armored) => usableKey(path, armored, passphrase)
    }))
  )

/**
 * Creates `path` with `content` and mode 0600 unless it exists, so that the file never exists
 * half-written or world-readable: a temporary file in the same directory, synced, then hard-linked
 * to `path`, which fails when `path` exists (atomic on local and network file systems alike). False
 * when another process created `path` first: its key is the instance's.
 */
const createPrivateFile = async (path: string, content: string): Promise<boolean> => {
  const temporary = `${path}.${randomBytes(6).toString("hex")}.tmp`
  const handle = await open(temporary, "wx", 0o600)
  try {
    await handle.writeFile(content, "utf8")
    await handle.sync()
  } finally {
    await handle.close()
  }
  try {
    await link(temporary, path)
    return true
  } catch (cause) {
    if (fileErrorCode(cause) === "EEXIST") return false
    throw cause
  } finally {
    await rm(temporary, { force: true })
  }
}

/**
 * Reuses `<dataDir>/signing-key.asc`, or creates an Ed25519 key for `name <email>` there on first
 * start. Processes starting together on one data directory all end up with the key created first.
 */
export const generatedKey = (dataDir: string, name: string, email: string) => {
  const path = generatedKeyPath(dataDir)
  const create = Effect.tryPromise({
    try: async () => {
      // EdDSA over Ed25519 in the v4 "legacy" encoding: the RFC 9580 Ed25519 algorithm (27) that openpgp
      // v6 calls `curve25519` is unknown to gpg 2.2, so git verify-commit could not check its signatures.
      // No encryption subkey: this key only signs.
      const { privateKey } = await openpgp.generateKey({
        type: "ecc",
        curve: "ed25519Legacy",
        subkeys: [],
        userIDs: [{ name, email }],
        format: "armored"
      })
      await mkdir(dataDir, { recursive: true, mode: 0o700 })
      return (await createPrivateFile(path, privateKey)) ? privateKey : await readFile(path, "utf8")
    },
    catch: (cause) => failure(path, `cannot create the key file (${reason(cause)})`)
  })
  return readIfPresent(path).pipe(
    Effect.flatMap(Option.match({ onNone: () => create, onSome: Effect.succeed })),
    Effect.flatMap((armored) => usableKey(path, armored, Option.none()))
  )
}
