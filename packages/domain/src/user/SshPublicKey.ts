/**
 * SSH public keys as Forgejo's `CheckPublicKeyString` accepts them (native parser, the default) and
 * its SHA256 fingerprint. [models/asymkey/ssh_key_parse.go, ssh_key_fingerprint.go,
 * routers/api/v1/repo/key.go HandleCheckKeyStringError, golang.org/x/crypto/ssh keys.go]
 *
 * Accepted input, after Go's `TrimSpace`:
 * - an OpenSSH line `type base64 [comment]` (also a bare `base64`): line breaks are removed and the
 *   line is split on single spaces, so an options prefix (`command="..." ssh-ed25519 ...`) is rejected;
 * - an RFC 4716 block starting `---- BEGIN SSH2 PUBLIC KEY ----` (header lines and their continuations
 *   are dropped, and so is the comment).
 * Key types: ssh-rsa, ssh-ed25519, ecdsa-sha2-nistp256/384/521, sk-ecdsa-sha2-nistp256@openssh.com,
 * sk-ssh-ed25519@openssh.com; ssh-dss parses but is not allowed by Forgejo's default key sizes.
 *
 * Not reproduced: PEM (`-----BEGIN PUBLIC KEY-----`) input and OpenSSH certificates, which Forgejo
 * converts or accepts; both are rejected here. ECDSA keys whose curve name differs from their type are
 * rejected (Go's parser takes the curve from the blob and lets that pass).
 *
 * Every failure is an `Invalid` whose message is Forgejo's 422 text, `Invalid key content: <reason>`.
 */
import { Effect, Result } from "effect"
import { Digest } from "effect/crypto"
import { Base64 } from "effect/encoding"
import { Invalid } from "../errors.ts"
import { trimGoSpace } from "./UserName.ts"
import { utf8Bytes } from "../Utf8.ts"

/** The key size check's name for a key type (Forgejo's `[ssh.minimum_key_sizes]` keys). */
export type SshKeyKind = "rsa" | "dsa" | "ecdsa" | "ed25519" | "ecdsa-sk" | "ed25519-sk"

export interface SshPublicKey {
  /** The algorithm name, e.g. `ssh-ed25519`. */
  readonly type: string
  readonly kind: SshKeyKind
  /** RSA modulus bits, DSA P bits, the curve size for ECDSA, 256 for Ed25519. */
  readonly bits: number
  /** The key blob (RFC 4253 wire format) as given. */
  readonly blob: Uint8Array
  /** The blob as Go's ssh package re-encodes it; the fingerprint hashes this (differs only for RSA given non-minimal integers). */
  readonly canonicalBlob: Uint8Array
  /** The base64 of the blob exactly as given. */
  readonly base64: string
  readonly comment: string
  /** What Forgejo stores and returns as `key`: `type base64 comment`, trimmed (SSH2 input: `type base64`). */
  readonly content: string
}

/** `MINIMUM_KEY_SIZE_CHECK` and `[ssh.minimum_key_sizes]`; a kind without an entry is not allowed. */
export interface SshKeySizePolicy {
  readonly check: boolean
  readonly minimumBits: Readonly<Partial<Record<SshKeyKind, number>>>
}

export const defaultSshKeySizePolicy: SshKeySizePolicy = {
  check: true,
  minimumBits: { ed25519: 256, "ed25519-sk": 256, ecdsa: 256, "ecdsa-sk": 256, rsa: 3071 }
}

// ---------------------------------------------------------------------------------------------
// Bytes and Go's base64

// Only used for messages; key type names are ASCII.
const asciiText = (bytes: Uint8Array): string =>
  Array.from(bytes, (byte) => byte < 0x80 ? String.fromCharCode(byte) : "\uFFFD").join("")

const sameBytes = (a: ArrayLike<number>, b: ArrayLike<number>): boolean =>
  a.length === b.length && Array.from(a).every((byte, index) => byte === b[index])

const base64Alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
const isBase64Byte = (byte: number): boolean => byte < 0x80 && base64Alphabet.includes(String.fromCharCode(byte))

/**
 * Where Go's `base64.StdEncoding` reports `illegal base64 data at input byte N` (a byte offset), or
 * `undefined` when Go accepts the text; a port of its `decodeQuantum` loop. Go skips CR and LF.
 */
const goBase64ErrorOffset = (text: string): number | undefined => {
  const src = utf8Bytes(text)
  const isNewline = (byte: number | undefined): boolean => byte === 0x0a || byte === 0x0d
  let si = 0
  for (;;) {
    for (let j = 0; j < 4; j++) {
      if (si === src.length) return j === 0 ? undefined : si - j
      const byte = src[si] ?? 0
      si++
      if (isBase64Byte(byte)) continue
      if (isNewline(byte)) {
        j--
        continue
      }
      if (byte !== 0x3d || j < 2) return si - 1
      if (j === 2) {
        while (si < src.length && isNewline(src[si])) si++
        if (si === src.length) return src.length
        if (src[si] !== 0x3d) return si - 1
        si++
      }
      while (si < src.length && isNewline(src[si])) si++
      return si < src.length ? si : undefined
    }
  }
}

/** Go's `base64.StdEncoding.DecodeString`; the bytes come from effect's decoder, which accepts the same texts. */
const decodeGoBase64 = (text: string): Result.Result<Uint8Array, string> => {
  const offset = goBase64ErrorOffset(text)
  if (offset !== undefined) return Result.fail(`illegal base64 data at input byte ${offset}`)
  return Result.mapError(Base64.decode(text), (error) => error.message)
}

// ---------------------------------------------------------------------------------------------
// The wire format (RFC 4251) and the key structures golang.org/x/crypto/ssh parses

class WireReader {
  readonly bytes: Uint8Array
  offset = 0
  constructor(bytes: Uint8Array) {
    this.bytes = bytes
  }
  get done(): boolean {
    return this.offset === this.bytes.length
  }
  string(): Uint8Array | undefined {
    if (this.bytes.length - this.offset < 4) return undefined
    const length = ((this.bytes[this.offset] ?? 0) * 2 ** 24) +
      (((this.bytes[this.offset + 1] ?? 0) << 16) | ((this.bytes[this.offset + 2] ?? 0) << 8) |
        (this.bytes[this.offset + 3] ?? 0))
    const start = this.offset + 4
    if (this.bytes.length - start < length) return undefined
    this.offset = start + length
    return this.bytes.subarray(start, start + length)
  }
  /** An mpint as Go reads it: a set top bit makes it negative (two's complement). */
  mpint(): bigint | undefined {
    const bytes = this.string()
    if (bytes === undefined) return undefined
    const magnitude = bytes.reduce((value, byte) => (value << 8n) | BigInt(byte), 0n)
    return bytes.length > 0 && ((bytes[0] ?? 0) & 0x80) !== 0 ? magnitude - (1n << BigInt(8 * bytes.length)) : magnitude
  }
}

const bitLength = (value: bigint): number => (value < 0n ? -value : value).toString(2).replace(/^0$/, "").length

const uint32 = (value: number): Array<number> => [(value >>> 24) & 0xff, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff]
const wireString = (bytes: ArrayLike<number>): Array<number> => [...uint32(bytes.length), ...Array.from(bytes)]

/** An mpint as Go's ssh.Marshal writes it: minimal two's complement. */
const wireMpint = (value: bigint): Array<number> => {
  if (value === 0n) return wireString([])
  const bytesOf = (n: bigint): Array<number> => {
    const bytes: Array<number> = []
    for (let rest = n; rest > 0n; rest >>= 8n) bytes.unshift(Number(rest & 0xffn))
    return bytes
  }
  if (value > 0n) {
    const bytes = bytesOf(value)
    return wireString((bytes[0] ?? 0) & 0x80 ? [0, ...bytes] : bytes)
  }
  const bytes = bytesOf(-value - 1n).map((byte) => byte ^ 0xff)
  return wireString(bytes.length === 0 || ((bytes[0] ?? 0) & 0x80) === 0 ? [0xff, ...bytes] : bytes)
}

interface Curve {
  readonly name: string
  readonly bits: number
  readonly p: bigint
  readonly b: bigint
}

const curves: ReadonlyArray<Curve> = [
  {
    name: "nistp256",
    bits: 256,
    p: 2n ** 256n - 2n ** 224n + 2n ** 192n + 2n ** 96n - 1n,
    b: 0x5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604bn
  },
  {
    name: "nistp384",
    bits: 384,
    p: 2n ** 384n - 2n ** 128n - 2n ** 96n + 2n ** 32n - 1n,
    b: 0xb3312fa7e23ee7e4988e056be3f82d19181d9c6efe8141120314088f5013875ac656398d8a2ed19d2a85c8edd3ec2aefn
  },
  {
    name: "nistp521",
    bits: 521,
    p: 2n ** 521n - 1n,
    b: 0x0051953eb9618e1c9a1f929a21a0b68540eea2da725b99b315f3b8b489918ef109e156193951ec7e937b1652c0bd3bb1bf073573df883d2c34f1ef451fd46b503f00n
  }
]

/** Go's `elliptic.Unmarshal`: an uncompressed point (0x04 || X || Y) on the curve, coordinates below p. */
const isCurvePoint = (curve: Curve, point: Uint8Array): boolean => {
  const size = Math.ceil(curve.bits / 8)
  if (point.length !== 1 + 2 * size || point[0] !== 4) return false
  const toBigInt = (bytes: Uint8Array) => bytes.reduce((value, byte) => (value << 8n) | BigInt(byte), 0n)
  const x = toBigInt(point.subarray(1, 1 + size))
  const y = toBigInt(point.subarray(1 + size))
  if (x >= curve.p || y >= curve.p) return false
  const mod = (n: bigint) => ((n % curve.p) + curve.p) % curve.p
  return mod(y * y) === mod(x * x * x - 3n * x + curve.b)
}

interface ParsedBlob {
  readonly type: string
  readonly kind: SshKeyKind
  readonly bits: number
  readonly canonicalBlob: Uint8Array
}

const optionalAscii = (bytes: Uint8Array | undefined): string | undefined =>
  bytes === undefined ? undefined : asciiText(bytes)

/** `ssh.ParsePublicKey` for the key (not certificate) algorithms; `undefined` where Go fails. */
const parseKeyBlob = (blob: Uint8Array): ParsedBlob | undefined => {
  const reader = new WireReader(blob)
  const typeBytes = reader.string()
  if (typeBytes === undefined) return undefined
  const type = asciiText(typeBytes)
  const finish = (kind: SshKeyKind, bits: number, canonicalBlob: Uint8Array = blob): ParsedBlob | undefined =>
    reader.done ? { type, kind, bits, canonicalBlob } : undefined
  switch (type) {
    case "ssh-rsa": {
      const e = reader.mpint()
      const n = reader.mpint()
      if (e === undefined || n === undefined || bitLength(e) > 24 || e < 3n || e % 2n === 0n) return undefined
      return finish("rsa", bitLength(n), Uint8Array.from([...wireString(typeBytes), ...wireMpint(e), ...wireMpint(n)]))
    }
    case "ssh-dss": {
      const [p, q, g, y] = [reader.mpint(), reader.mpint(), reader.mpint(), reader.mpint()]
      if (p === undefined || q === undefined || g === undefined || y === undefined || bitLength(p) !== 1024) return undefined
      return finish("dsa", bitLength(p))
    }
    case "ssh-ed25519":
    case "sk-ssh-ed25519@openssh.com": {
      const key = reader.string()
      const sk = type.startsWith("sk-")
      if (key === undefined || key.length !== 32 || (sk && reader.string() === undefined)) return undefined
      return finish(sk ? "ed25519-sk" : "ed25519", 256)
    }
    case "ecdsa-sha2-nistp256":
    case "ecdsa-sha2-nistp384":
    case "ecdsa-sha2-nistp521":
    case "sk-ecdsa-sha2-nistp256@openssh.com": {
      const sk = type.startsWith("sk-")
      const curveName = optionalAscii(reader.string())
      const point = reader.string()
      const curve = curves.find((c) => c.name === curveName)
      if (curve === undefined || point === undefined || !type.includes(curve.name) || !isCurvePoint(curve, point)) {
        return undefined
      }
      if (sk && reader.string() === undefined) return undefined
      return finish(sk ? "ecdsa-sk" : "ecdsa", curve.bits)
    }
    default:
      return undefined
  }
}

// ---------------------------------------------------------------------------------------------
// Forgejo's flow

type Step<A> = Result.Result<A, string>

/** `extractTypeFromBase64Key`: the type string at the start of the blob. */
const extractType = (base64: string): Step<Uint8Array> => {
  const decoded = decodeGoBase64(base64)
  const prefix = "extractTypeFromBase64Key: invalid key format: "
  if (Result.isFailure(decoded)) return Result.fail(prefix + decoded.failure)
  const blob = decoded.success
  // Go formats the nil error of a too-short blob with %w.
  if (blob.length < 4) return Result.fail(prefix + "%!w(<nil>)")
  const length = new WireReader(blob).string()
  if (length === undefined) {
    const declared = ((blob[0] ?? 0) * 2 ** 24) + (((blob[1] ?? 0) << 16) | ((blob[2] ?? 0) << 8) | (blob[3] ?? 0))
    return Result.fail(`${prefix}not enough length ${declared}`)
  }
  return Result.succeed(length)
}

interface KeyLine {
  readonly type: string
  readonly base64: string
  readonly comment: string
}

const ssh2Start = "---- BEGIN SSH2 PUBLIC KEY ----"

/** `parseKeyString` up to the final `ssh.ParseAuthorizedKey` check. */
const splitKey = (input: string): Step<KeyLine> => {
  let content = trimGoSpace(input)
  if (content.startsWith(ssh2Start)) {
    let base64 = ""
    let continuation = false
    for (const line of content.replaceAll("\r\n", "\n").replaceAll("\r", "\n").split("\n")) {
      if (continuation || /[:-]/.test(line)) continuation = line.endsWith("\\")
      else base64 += line
    }
    return Result.map(extractType(base64), (type) => ({ type: asciiText(type), base64, comment: "" }))
  }
  if (content.includes("-----BEGIN")) {
    return Result.fail("unable to convert to ssh public key: PEM keys are not supported by this server")
  }
  content = content.replaceAll("\r\n", "").replaceAll("\n", "")
  const space = content.indexOf(" ")
  const second = space === -1 ? -1 : content.indexOf(" ", space + 1)
  const [givenType, base64, comment] = space === -1
    ? ["", content, ""]
    : second === -1
    ? [content.slice(0, space), content.slice(space + 1), ""]
    : [content.slice(0, space), content.slice(space + 1, second), content.slice(second + 1)]
  return Result.flatMap(extractType(base64), (typeBytes): Step<KeyLine> => {
    if (givenType === "") return Result.succeed({ type: asciiText(typeBytes), base64, comment })
    return sameBytes(utf8Bytes(givenType), typeBytes)
      ? Result.succeed({ type: givenType, base64, comment })
      : Result.fail(`key type and content does not match: ${givenType} - ${asciiText(typeBytes)}`)
  })
}

/**
 * `ssh.ParseAuthorizedKey` on the rebuilt line: the first line up to any CR, trimmed, must hold a
 * type field and then a base64 blob Go's parser accepts. (Go then retries with the first field read as
 * options; that retry is not reproduced.)
 */
const authorizedKeyBlob = (line: string): Uint8Array | undefined => {
  const cr = line.indexOf("\r")
  const trimmed = trimGoSpace(cr === -1 ? line : line.slice(0, cr))
  if (trimmed === "" || trimmed.startsWith("#")) return undefined
  const separator = trimmed.search(/[ \t]/)
  if (separator === -1) return undefined
  const rest = trimGoSpace(trimmed.slice(separator))
  const end = rest.search(/[ \t]/)
  const decoded = decodeGoBase64(end === -1 ? rest : rest.slice(0, end))
  if (Result.isFailure(decoded)) return undefined
  return parseKeyBlob(decoded.success) === undefined ? undefined : decoded.success
}

const checkKey = (input: string, policy: SshKeySizePolicy): Step<SshPublicKey> =>
  Result.flatMap(splitKey(input), ({ base64, comment, type }): Step<SshPublicKey> => {
    const line = `${type} ${base64} ${comment}`
    const blob = authorizedKeyBlob(line)
    if (blob === undefined) return Result.fail("invalid ssh public key: ssh: no key found")
    if (/[\r\n]/.test(line.replace(/[\r\n]+$/, ""))) return Result.fail("only a single line with a single key please")
    const parsed = parseKeyBlob(blob)
    if (parsed === undefined) return Result.fail("invalid ssh public key: ssh: no key found")
    if (policy.check) {
      const minimum = policy.minimumBits[parsed.kind]
      if (minimum === undefined) return Result.fail(`key type is not allowed: ${parsed.kind}`)
      if (parsed.bits < minimum) return Result.fail(`key length is not enough: got ${parsed.bits}, needs ${minimum}`)
    }
    const content = trimGoSpace(line)
    return Result.succeed({
      type,
      kind: parsed.kind,
      bits: parsed.bits,
      blob,
      canonicalBlob: parsed.canonicalBlob,
      base64,
      comment: trimGoSpace(comment),
      content
    })
  })

/**
 * Forgejo's `CheckPublicKeyString`; failures are 422 `Invalid key content: <reason>`, e.g.
 * `Invalid key content: key length is not enough: got 2048, needs 3071`.
 */
export const parseSshPublicKey = (
  input: string,
  policy: SshKeySizePolicy = defaultSshKeySizePolicy
): Effect.Effect<SshPublicKey, Invalid> => {
  const checked = checkKey(input, policy)
  return Result.isSuccess(checked)
    ? Effect.succeed(checked.success)
    : Effect.fail(new Invalid({ message: `Invalid key content: ${checked.failure}` }))
}

/** `SHA256:<unpadded base64 of sha256(key)>`, as `ssh-keygen -lf` and Forgejo print it. */
export const sshFingerprint = (key: SshPublicKey): Effect.Effect<string, never, Digest.Digest> =>
  Effect.gen(function*() {
    const digest = yield* Digest.Digest
    const hash = yield* digest.digest(Digest.sha256, key.canonicalBlob)
    return `SHA256:${Base64.encode(hash).replace(/=+$/, "")}`
  })
