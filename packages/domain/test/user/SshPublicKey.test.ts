import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { Digest } from "effect/crypto"
import { Base64 } from "effect/encoding"
import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll } from "vitest"
import { parseSshPublicKey, type SshPublicKey, sshFingerprint } from "../../src/user/SshPublicKey.ts"

// Real keys from the real ssh-keygen: the fingerprints below are what OpenSSH prints.
let dir = ""
const generated = new Map<string, { readonly line: string; readonly fingerprint: string; readonly ssh2: string }>()
const keygen = (...args: Array<string>) => execFileSync("ssh-keygen", args, { encoding: "utf8" })
const fingerprintOf = (file: string) => keygen("-lf", file).split(" ")[1] ?? ""
const specs: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
  ["ed25519", ["-t", "ed25519"]],
  ["ecdsa256", ["-t", "ecdsa", "-b", "256"]],
  ["ecdsa384", ["-t", "ecdsa", "-b", "384"]],
  ["ecdsa521", ["-t", "ecdsa", "-b", "521"]],
  ["rsa3072", ["-t", "rsa", "-b", "3072"]],
  ["rsa2048", ["-t", "rsa", "-b", "2048"]],
  ["dsa", ["-t", "dsa"]]
]

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "kiln-ssh-"))
  for (const [name, args] of specs) {
    const file = join(dir, name)
    keygen("-q", ...args, "-N", "", "-C", `${name} comment`, "-f", file)
    generated.set(name, {
      line: readFileSync(`${file}.pub`, "utf8"),
      fingerprint: fingerprintOf(`${file}.pub`),
      ssh2: keygen("-e", "-f", `${file}.pub`)
    })
  }
}, 60_000)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const key = (name: string) => {
  const found = generated.get(name)
  if (found === undefined) throw new Error(`no generated key ${name}`)
  return found
}
const run = <A, E>(effect: Effect.Effect<A, E, Digest.Digest>) => Effect.runPromise(Effect.provide(effect, Digest.layerWebCrypto))
const parse = (input: string) => run(parseSshPublicKey(input))
const failure = (input: string) => run(Effect.flip(parseSshPublicKey(input))).then((error) => error.message)
const fingerprint = (parsed: SshPublicKey) => run(sshFingerprint(parsed))
const blobOf = (line: string) => line.split(" ")[1] ?? ""
const wire = (...fields: ReadonlyArray<Uint8Array | string>) => {
  const bytes: Array<number> = []
  for (const field of fields) {
    const data = typeof field === "string" ? Array.from(field, (c) => c.charCodeAt(0)) : Array.from(field)
    bytes.push((data.length >>> 24) & 0xff, (data.length >>> 16) & 0xff, (data.length >>> 8) & 0xff, data.length & 0xff, ...data)
  }
  return Base64.encode(Uint8Array.from(bytes))
}

describe("SshPublicKey", () => {
  it("parses every key ssh-keygen makes that Forgejo allows, with ssh-keygen's fingerprint", async () => {
    const expected: ReadonlyArray<readonly [string, string, string, number]> = [
      ["ed25519", "ssh-ed25519", "ed25519", 256],
      ["ecdsa256", "ecdsa-sha2-nistp256", "ecdsa", 256],
      ["ecdsa384", "ecdsa-sha2-nistp384", "ecdsa", 384],
      ["ecdsa521", "ecdsa-sha2-nistp521", "ecdsa", 521],
      ["rsa3072", "ssh-rsa", "rsa", 3072]
    ]
    for (const [name, type, kind, bits] of expected) {
      const { fingerprint: want, line } = key(name)
      const parsed = await parse(line)
      assert.strictEqual(parsed.type, type)
      assert.strictEqual(parsed.kind, kind)
      assert.strictEqual(parsed.bits, bits)
      assert.strictEqual(parsed.comment, `${name} comment`)
      assert.strictEqual(parsed.content, line.trim())
      assert.strictEqual(parsed.base64, blobOf(line))
      assert.strictEqual(Base64.encode(parsed.blob), parsed.base64)
      assert.strictEqual(await fingerprint(parsed), want, name)
    }
  })

  it("accepts the RFC 4716 form, dropping headers and the comment (the fingerprint stays)", async () => {
    for (const name of ["ed25519", "ecdsa384", "rsa3072"]) {
      const { fingerprint: want, line, ssh2 } = key(name)
      assert.match(ssh2, /^---- BEGIN SSH2 PUBLIC KEY ----/)
      const parsed = await parse(ssh2)
      assert.strictEqual(parsed.comment, "")
      assert.strictEqual(parsed.content, `${line.split(" ")[0]} ${blobOf(line)}`)
      assert.strictEqual(await fingerprint(parsed), want)
      // CRLF line ends and a folded header are fine too
      const folded = ssh2.replace("Comment:", "x-note: a\\\n  continued\nComment:").replaceAll("\n", "\r\n")
      assert.strictEqual((await parse(folded)).content, parsed.content)
    }
  })

  it("handles type-less keys, comments with spaces, surrounding whitespace and wrapped base64 as Forgejo does", async () => {
    const { line } = key("ed25519")
    const [type = "", blob = ""] = line.split(" ")
    assert.strictEqual((await parse(blob)).content, `${type} ${blob}`)
    assert.strictEqual((await parse(`  ${type} ${blob} a comment  with spaces \n`)).content, `${type} ${blob} a comment  with spaces`)
    assert.strictEqual((await parse(`${type} ${blob.slice(0, 20)}\n${blob.slice(20)}\r\n`)).content, `${type} ${blob}`)
    // ADM-01: a form-posted key ending in a newline
    const rsa = key("rsa3072").line
    const adm01 = await parse(`ssh-rsa ${blobOf(rsa)} nocomment\n`)
    assert.strictEqual(adm01.content, `ssh-rsa ${blobOf(rsa)} nocomment`)
    assert.strictEqual(adm01.comment, "nocomment")
  })

  it("rejects malformed keys with Forgejo's texts", async () => {
    const ed = key("ed25519").line
    const blob = blobOf(ed)
    const cases: ReadonlyArray<readonly [string, string]> = [
      [`command="ls" ${ed}`, "extractTypeFromBase64Key: invalid key format: illegal base64 data at input byte 3"],
      [`ssh-rsa ${blob}`, "key type and content does not match: ssh-rsa - ssh-ed25519"],
      ["ssh-ed25519 AAAA", "extractTypeFromBase64Key: invalid key format: %!w(<nil>)"],
      ["ssh-ed25519 AAAAC3NzaC1lZDI1", "extractTypeFromBase64Key: invalid key format: not enough length 11"],
      ["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5A", "extractTypeFromBase64Key: invalid key format: illegal base64 data at input byte 20"],
      ["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AA=", "extractTypeFromBase64Key: invalid key format: illegal base64 data at input byte 23"],
      ["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AA==AAAA", "extractTypeFromBase64Key: invalid key format: illegal base64 data at input byte 24"],
      ["ssh-ed25519 AAAA=AAA", "extractTypeFromBase64Key: invalid key format: illegal base64 data at input byte 4"],
      [`ssh-ed25519\t${blob}`, "extractTypeFromBase64Key: invalid key format: illegal base64 data at input byte 3"],
      // split on single spaces only: the second field is "ed25519", 7 bytes, one short quantum
      [`ssh-ed25519\t${blob} ed25519 comment`, "extractTypeFromBase64Key: invalid key format: illegal base64 data at input byte 4"],
      [`ssh-ed25519 ${blob.slice(0, -8)}`, "invalid ssh public key: ssh: no key found"],
      [`ssh-ed25519 ${blob} first\rsecond`, "only a single line with a single key please"],
      [`ssh-foo ${wire("ssh-foo", "whatever")}`, "invalid ssh public key: ssh: no key found"],
      [`ssh-ed25519 ${wire("ssh-ed25519", new Uint8Array(31))}`, "invalid ssh public key: ssh: no key found"],
      [`ssh-ed25519 ${wire("ssh-ed25519", new Uint8Array(32), "trailing")}`, "invalid ssh public key: ssh: no key found"],
      [key("rsa2048").line, "key length is not enough: got 2048, needs 3071"],
      [key("dsa").line, "key type is not allowed: dsa"],
      ["", "extractTypeFromBase64Key: invalid key format: %!w(<nil>)"]
    ]
    for (const [input, reason] of cases) {
      assert.strictEqual(await failure(input), `Invalid key content: ${reason}`, JSON.stringify(input.slice(0, 40)))
    }
  })

  it("checks ECDSA structure: curve name and a point on that curve", async () => {
    const line = key("ecdsa256").line
    const blob = Base64.decode(blobOf(line))
    if (blob._tag !== "Success") throw new Error("bad fixture")
    const bytes = blob.success
    // 4+19 type, 4+8 curve, 4+65 point: flip the last byte of Y
    const offPoint = Uint8Array.from(bytes)
    offPoint[offPoint.length - 1] = (offPoint[offPoint.length - 1] ?? 0) ^ 1
    assert.strictEqual(await failure(`ecdsa-sha2-nistp256 ${Base64.encode(offPoint)}`),
      "Invalid key content: invalid ssh public key: ssh: no key found")
    const point = bytes.subarray(4 + 19 + 4 + 8 + 4)
    assert.strictEqual(await failure(`ecdsa-sha2-nistp256 ${wire("ecdsa-sha2-nistp256", "nistp384", point)}`),
      "Invalid key content: invalid ssh public key: ssh: no key found")
    assert.strictEqual((await parse(`ecdsa-sha2-nistp256 ${wire("ecdsa-sha2-nistp256", "nistp256", point)}`)).bits, 256)
  })

  it("accepts security-key variants (sk-) and fingerprints them like ssh-keygen", async () => {
    const ed = Base64.decode(blobOf(key("ed25519").line))
    const ec = Base64.decode(blobOf(key("ecdsa256").line))
    if (ed._tag !== "Success" || ec._tag !== "Success") throw new Error("bad fixture")
    const edKey = ed.success.subarray(4 + 11 + 4)
    const ecPoint = ec.success.subarray(4 + 19 + 4 + 8 + 4)
    const lines = [
      `sk-ssh-ed25519@openssh.com ${wire("sk-ssh-ed25519@openssh.com", edKey, "ssh:")} sk one`,
      `sk-ecdsa-sha2-nistp256@openssh.com ${wire("sk-ecdsa-sha2-nistp256@openssh.com", "nistp256", ecPoint, "ssh:")} sk two`
    ]
    for (const [index, line] of lines.entries()) {
      const file = join(dir, `sk${index}.pub`)
      writeFileSync(file, `${line}\n`)
      const parsed = await parse(line)
      assert.strictEqual(parsed.kind, index === 0 ? "ed25519-sk" : "ecdsa-sk")
      assert.strictEqual(parsed.bits, 256)
      assert.strictEqual(await fingerprint(parsed), fingerprintOf(file))
    }
    // the application string is part of the structure
    assert.strictEqual(await failure(`sk-ssh-ed25519@openssh.com ${wire("sk-ssh-ed25519@openssh.com", edKey)}`),
      "Invalid key content: invalid ssh public key: ssh: no key found")
  })

  it("honours the key size policy", async () => {
    const parsed = await run(parseSshPublicKey(key("rsa2048").line, { check: false, minimumBits: {} }))
    assert.strictEqual(parsed.bits, 2048)
    const dsa = await run(parseSshPublicKey(key("dsa").line, { check: true, minimumBits: { dsa: 1024 } }))
    assert.strictEqual(dsa.kind, "dsa")
    assert.strictEqual(await fingerprint(dsa), key("dsa").fingerprint)
  })
})
