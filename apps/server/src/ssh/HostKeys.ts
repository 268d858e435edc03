/**
 * The built-in SSH server's host keys: files the operator names (KILN_SSH_HOST_KEYS), or an
 * Ed25519 and an RSA key generated once into `<data dir>/ssh/` and shared by every process on that
 * directory. As with the signing key, the first process to create a file wins: a key is written to
 * a temporary file and hard-linked into place, which fails when another process got there first,
 * whose key is then read. The Ed25519 key is in OpenSSH's own format and the RSA key in PEM, so
 * `ssh-keygen -y -f` reads both.
 */
import { generateKeyPairSync, randomBytes } from "node:crypto"
import { link, mkdir, open, readFile, rm } from "node:fs/promises"
import { Data, Effect } from "effect"
import ssh2 from "ssh2"
import { generatedHostKeyFiles, hostKeyDirectory } from "./HostKeyFiles.ts"

export class HostKeyFailed extends Data.TaggedError("HostKeyFailed")<{ readonly message: string }> {}


const sshString = (data: Buffer | string): Buffer => {
  const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data
  const length = Buffer.alloc(4)
  length.writeUInt32BE(bytes.length)
  return Buffer.concat([length, bytes])
}

const uint32 = (value: number): Buffer => {
  const bytes = Buffer.alloc(4)
  bytes.writeUInt32BE(value)
  return bytes
}

/** An Ed25519 private key in OpenSSH's `openssh-key-v1` format, unencrypted (PROTOCOL.key). */
export const ed25519OpenSshKey = (comment: string): string => {
  const { privateKey } = generateKeyPairSync("ed25519")
  const jwk = privateKey.export({ format: "jwk" })
  const seed = Buffer.from(jwk.d ?? "", "base64url")
  const publicBytes = Buffer.from(jwk.x ?? "", "base64url")
  const publicBlob = Buffer.concat([sshString("ssh-ed25519"), sshString(publicBytes)])
  const check = randomBytes(4)
  let section = Buffer.concat([
    check,
    check,
    sshString("ssh-ed25519"),
    sshString(publicBytes),
    sshString(Buffer.concat([seed, publicBytes])),
    sshString(comment)
  ])
  const padding = (8 - (section.length % 8)) % 8
  section = Buffer.concat([section, Buffer.from(Array.from({ length: padding }, (_, index) => index + 1))])
  const body = Buffer.concat([
    Buffer.from("openssh-key-v1\0", "latin1"),
    sshString("none"),
    sshString("none"),
    sshString(""),
    uint32(1),
    sshString(publicBlob),
    sshString(section)
  ]).toString("base64")
  const lines = body.match(/.{1,70}/g) ?? []
  return `-----BEGIN OPENSSH PRIVATE KEY-----\n${lines.join("\n")}\n-----END OPENSSH PRIVATE KEY-----\n`
}

const rsaPemKey = (): string =>
  generateKeyPairSync("rsa", { modulusLength: 3072 }).privateKey.export({ type: "pkcs1", format: "pem" }).toString()

const errorCode = (cause: unknown): string | undefined =>
  typeof cause === "object" && cause !== null && "code" in cause && typeof cause.code === "string" ? cause.code : undefined

/** Creates `path` with mode 0600 unless it exists; the file that is there afterwards is read back. */
const createOnce = async (path: string, make: () => string): Promise<string> => {
  const existing = await readFile(path, "utf8").catch((cause: unknown) => errorCode(cause) === "ENOENT" ? undefined : Promise.reject(cause))
  if (existing !== undefined) return existing
  const content = make()
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
    return content
  } catch (cause) {
    if (errorCode(cause) === "EEXIST") return await readFile(path, "utf8")
    throw cause
  } finally {
    await rm(temporary, { force: true })
  }
}

/** Checks that ssh2 reads `text` as a private key. */
const usable = (path: string, text: string) => {
  const parsed = ssh2.utils.parseKey(text)
  if (parsed instanceof Error) return Effect.fail(new HostKeyFailed({ message: `SSH host key ${path}: ${parsed.message}` }))
  const key = Array.isArray(parsed) ? parsed[0] : parsed
  if (key === undefined || !key.isPrivateKey()) {
    return Effect.fail(new HostKeyFailed({ message: `SSH host key ${path}: not a private key` }))
  }
  return Effect.succeed(text)
}

const reason = (cause: unknown) => (cause instanceof Error ? cause.message : String(cause)).split("\n")[0] ?? ""

/** The host keys' private key texts, in the order the server offers them. */
export const loadHostKeys = (options: { readonly dataDir: string; readonly paths: ReadonlyArray<string> }) =>
  Effect.gen(function*() {
    if (options.paths.length > 0) {
      return yield* Effect.forEach(options.paths, (path) =>
        Effect.tryPromise({
          try: () => readFile(path, "utf8"),
          catch: (cause) => new HostKeyFailed({ message: `SSH host key ${path}: cannot read the file (${reason(cause)})` })
        }).pipe(Effect.flatMap((text) => usable(path, text))))
    }
    const files = generatedHostKeyFiles(options.dataDir)
    yield* Effect.tryPromise({
      try: () => mkdir(hostKeyDirectory(options.dataDir), { recursive: true, mode: 0o700 }),
      catch: (cause) => new HostKeyFailed({ message: `SSH host keys: cannot create ${hostKeyDirectory(options.dataDir)} (${reason(cause)})` })
    })
    const generated = (path: string, make: () => string) =>
      Effect.tryPromise({
        try: () => createOnce(path, make),
        catch: (cause) => new HostKeyFailed({ message: `SSH host key ${path}: cannot create the file (${reason(cause)})` })
      }).pipe(Effect.flatMap((text) => usable(path, text)))
    const ed25519 = yield* generated(files.ed25519, () => ed25519OpenSshKey("kiln"))
    const rsa = yield* generated(files.rsa, rsaPemKey)
    return [ed25519, rsa]
  })
