/**
 * PasswordHasher with scrypt (memory-hard; N=2^15, r=8, p=1: 32 MiB and ~60 ms per hash here),
 * stored as `scrypt$N$r$p$salt$hash` so parameters can change without invalidating old hashes.
 */
import { Effect, Layer, Redacted } from "effect"
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto"
import { PasswordHasher } from "@kiln/domain/auth/PasswordHasher"

const N = 1 << 15
const R = 8
const P = 1
const KEY_LENGTH = 32

const derive = (password: string, salt: Buffer, n: number, r: number, p: number) =>
  Effect.callback<Buffer>((resume) => {
    scrypt(password, salt, KEY_LENGTH, { N: n, r, p, maxmem: 256 * n * r }, (error, key) => {
      resume(error === null ? Effect.succeed(key) : Effect.die(error))
    })
  })

export const layer: Layer.Layer<PasswordHasher> = Layer.succeed(
  PasswordHasher,
  PasswordHasher.of({
    hash: (password) =>
      Effect.gen(function*() {
        const salt = randomBytes(16)
        const key = yield* derive(Redacted.value(password), salt, N, R, P)
        return `scrypt$${N}$${R}$${P}$${salt.toString("base64")}$${key.toString("base64")}`
      }),
    verify: (password, stored) =>
      Effect.gen(function*() {
        const [scheme, n, r, p, salt, hash] = stored.split("$")
        if (scheme !== "scrypt" || n === undefined || r === undefined || p === undefined || salt === undefined || hash === undefined) {
          return false
        }
        const expected = Buffer.from(hash, "base64")
        const key = yield* derive(Redacted.value(password), Buffer.from(salt, "base64"), Number(n), Number(r), Number(p))
        return key.length === expected.length && timingSafeEqual(key, expected)
      })
  })
)
