import { assert, describe, it } from "@effect/vitest"
import { randomBytes, scryptSync } from "node:crypto"
import { Effect, Layer, Redacted } from "effect"
import { PasswordHasher } from "@kiln/domain/auth/PasswordHasher"
import * as ScryptPasswordHasher from "../../src/platform/ScryptPasswordHasher.ts"

const password = Redacted.make("correct horse battery staple")

/** A hash as an older Kiln stored it (N=2^15). */
const oldHash = () => {
  const salt = randomBytes(16)
  const key = scryptSync(Redacted.value(password), salt, 32, { N: 1 << 15, r: 8, p: 1, maxmem: 256 * (1 << 15) * 8 })
  return `scrypt$${1 << 15}$8$1$${salt.toString("base64")}$${key.toString("base64")}`
}

describe("ScryptPasswordHasher", () => {
  it.effect("hashes at OWASP's minimum, N=2^17, by default", () =>
    Effect.gen(function*() {
      const hasher = yield* PasswordHasher
      const hash = yield* hasher.hash(password)
      assert.match(hash, /^scrypt\$131072\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/)
      assert.isTrue(yield* hasher.verify(password, hash))
      assert.isFalse(yield* hasher.verify(Redacted.make("wrong"), hash))
      assert.isFalse(hasher.needsRehash(hash))
    }).pipe(Effect.provide(ScryptPasswordHasher.layer)), { timeout: 30_000 })

  it.effect("still accepts hashes made with the old parameters, and says they need replacing", () =>
    Effect.gen(function*() {
      const hasher = yield* PasswordHasher
      const stored = oldHash()
      assert.isTrue(yield* hasher.verify(password, stored))
      assert.isFalse(yield* hasher.verify(Redacted.make("wrong"), stored))
      assert.isTrue(hasher.needsRehash(stored))
    }).pipe(Effect.provide(ScryptPasswordHasher.layer)), { timeout: 30_000 })

  it.effect("refuses stored hashes it cannot parse or that ask for absurd work, without deriving", () =>
    Effect.gen(function*() {
      const hasher = yield* PasswordHasher
      for (const stored of ["", "scrypt$secret", "bcrypt$1$2$3$4$5", `scrypt$${2 ** 30}$8$1$c2FsdA==$aGFzaA==`, "scrypt$1000$8$1$c2FsdA==$aGFzaA==", "scrypt$1024$64$1$c2FsdA==$aGFzaA=="]) {
        assert.isFalse(yield* hasher.verify(password, stored), stored)
      }
    }).pipe(Effect.provide(ScryptPasswordHasher.layer)))

  it.effect("uses a lower cost only where it is set (the test suite)", () =>
    Effect.gen(function*() {
      const hasher = yield* PasswordHasher
      const hash = yield* hasher.hash(password)
      assert.match(hash, /^scrypt\$1024\$/)
      assert.isTrue(hasher.needsRehash(`scrypt$512$8$1$c2FsdA==$aGFzaA==`))
    }).pipe(Effect.provide(ScryptPasswordHasher.layer.pipe(Layer.provide(Layer.succeed(ScryptPasswordHasher.ScryptCost, 10))))))
})
