/**
 * PasswordHasher with scrypt at OWASP's minimum for new hashes (N=2^17, r=8, p=1: 128 MiB and a
 * few hundred ms per hash), stored as `scrypt$N$r$p$salt$hash` so parameters can change without
 * invalidating old hashes: a hash with a smaller N still verifies, and `needsRehash` says it should
 * be replaced (Authentication does so on the next successful sign-in).
 */
import { Context, Effect, Layer, Redacted } from "effect"
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto"
import { PasswordHasher } from "@kiln/domain/auth/PasswordHasher"

/** log2 of N for new hashes. Production uses the default; only tests lower it, to stay fast. */
export class ScryptCost extends Context.Reference<number>("@kiln/server/ScryptCost", { defaultValue: () => 17 }) {}

const R = 8
const P = 1
const KEY_LENGTH = 32

const derive = (password: string, salt: Buffer, n: number, r: number, p: number) =>
  Effect.callback<Buffer>((resume) => {
    scrypt(password, salt, KEY_LENGTH, { N: n, r, p, maxmem: 256 * n * r }, (error, key) => {
      resume(error === null ? Effect.succeed(key) : Effect.die(error))
    })
  })

/** The parameters of a stored hash; undefined when it is not one of ours or asks for absurd work. */
const parse = (stored: string) => {
  const [scheme, n, r, p, salt, hash] = stored.split("$")
  if (scheme !== "scrypt" || salt === undefined || hash === undefined) return undefined
  const [cost, blockSize, parallel] = [Number(n), Number(r), Number(p)]
  // A stored hash is trusted data, but a corrupt one must not make one sign-in allocate gigabytes.
  const sane = Number.isInteger(cost) && cost >= 2 && cost <= 1 << 20 && (cost & (cost - 1)) === 0 &&
    blockSize === R && parallel === P
  return sane ? { n: cost, salt: Buffer.from(salt, "base64"), hash: Buffer.from(hash, "base64") } : undefined
}

export const layer: Layer.Layer<PasswordHasher> = Layer.effect(
  PasswordHasher,
  Effect.gen(function*() {
    const N = 1 << (yield* ScryptCost)
    return PasswordHasher.of({
      hash: (password) =>
        Effect.gen(function*() {
          const salt = randomBytes(16)
          const key = yield* derive(Redacted.value(password), salt, N, R, P)
          return `scrypt$${N}$${R}$${P}$${salt.toString("base64")}$${key.toString("base64")}`
        }),
      verify: (password, stored) =>
        Effect.gen(function*() {
          const parsed = parse(stored)
          if (parsed === undefined) return false
          const key = yield* derive(Redacted.value(password), parsed.salt, parsed.n, R, P)
          return key.length === parsed.hash.length && timingSafeEqual(key, parsed.hash)
        }),
      needsRehash: (stored) => (parse(stored)?.n ?? 0) < N
    })
  })
)
