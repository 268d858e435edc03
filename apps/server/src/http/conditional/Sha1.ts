/**
 * SHA-1 (FIPS 180-4) of a small body in JavaScript, as base64url without padding: the same string
 * as `hash("sha1", body, "base64url")`. Every answer that is not kept is tagged, and in a server's
 * request path Node's one-shot digest of a small body cost ~8–10 µs (~1 µs in a loop: the call into
 * OpenSSL runs cold); this one costs ~4 µs less there (`/version`, alternating runs of two servers).
 * Not for secrets (not constant-time), nor for large bodies: EntityTag.ts chooses.
 */
const words = new Int32Array(80)

const BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

/** The byte at `index` of `body` padded as SHA-1 pads it (0x80, then zeros); the length goes in by words. */
const paddedByte = (body: Uint8Array, index: number): number =>
  index < body.length ? body[index] ?? 0 : index === body.length ? 0x80 : 0

export const sha1Base64Url = (body: Uint8Array): string => {
  const length = body.length
  // Room for the 0x80 byte and the 64-bit length after the body.
  const blocks = ((length + 8) >>> 6) + 1
  let h0 = 0x67452301
  let h1 = 0xefcdab89 | 0
  let h2 = 0x98badcfe | 0
  let h3 = 0x10325476
  let h4 = 0xc3d2e1f0 | 0
  for (let block = 0; block < blocks; block++) {
    const start = block * 64
    for (let i = 0; i < 16; i++) {
      const at = start + i * 4
      words[i] = (paddedByte(body, at) << 24) | (paddedByte(body, at + 1) << 16) | (paddedByte(body, at + 2) << 8) |
        paddedByte(body, at + 3)
    }
    if (block === blocks - 1) {
      // The length in bits, big-endian: its high word is length ÷ 2^29.
      words[14] = Math.floor(length / 0x20000000)
      words[15] = length << 3
    }
    for (let i = 16; i < 80; i++) {
      const x = (words[i - 3] ?? 0) ^ (words[i - 8] ?? 0) ^ (words[i - 14] ?? 0) ^ (words[i - 16] ?? 0)
      words[i] = (x << 1) | (x >>> 31)
    }
    let a = h0
    let b = h1
    let c = h2
    let d = h3
    let e = h4
    for (let i = 0; i < 80; i++) {
      const f = i < 20
        ? ((b & c) | (~b & d)) + 0x5a827999
        : i < 40
        ? (b ^ c ^ d) + 0x6ed9eba1
        : i < 60
        ? ((b & c) | (b & d) | (c & d)) + 0x8f1bbcdc
        : (b ^ c ^ d) + 0xca62c1d6
      const t = (((a << 5) | (a >>> 27)) + f + e + (words[i] ?? 0)) | 0
      e = d
      d = c
      c = (b << 30) | (b >>> 2)
      b = a
      a = t
    }
    h0 = (h0 + a) | 0
    h1 = (h1 + b) | 0
    h2 = (h2 + c) | 0
    h3 = (h3 + d) | 0
    h4 = (h4 + e) | 0
  }
  return base64Url([h0, h1, h2, h3, h4])
}

/** The 20 bytes of the five words, big-endian, as 27 base64url characters. */
const base64Url = (digest: ReadonlyArray<number>): string => {
  const bytes: Array<number> = []
  for (const word of digest) bytes.push((word >>> 24) & 0xff, (word >>> 16) & 0xff, (word >>> 8) & 0xff, word & 0xff)
  let text = ""
  for (let i = 0; i < bytes.length; i += 3) {
    const b0 = bytes[i] ?? 0
    const b1 = bytes[i + 1] ?? 0
    const b2 = bytes[i + 2] ?? 0
    text += BASE64URL[b0 >>> 2]
    text += BASE64URL[((b0 & 3) << 4) | (b1 >>> 4)]
    if (i + 1 < bytes.length) text += BASE64URL[((b1 & 15) << 2) | (b2 >>> 6)]
    if (i + 2 < bytes.length) text += BASE64URL[b2 & 63]
  }
  return text
}
