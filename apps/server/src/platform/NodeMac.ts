/**
 * effect's `Mac` with HMAC computed by node:crypto (synchronous). A key's bytes become a KeyObject
 * once: building one from raw bytes on every tag cost more than the tag (~55 µs against ~20 µs),
 * and sign-in checks a remembered password's tag on every request.
 */
import { Layer } from "effect"
import { Mac, SecureRandom } from "effect/crypto"
import { createHmac, createSecretKey, type KeyObject } from "node:crypto"

// effect hands `hmac` the key's own bytes, the same array on every call.
const keyObjects = new WeakMap<Uint8Array, KeyObject>()

const keyObjectOf = (bytes: Uint8Array): KeyObject => {
  const known = keyObjects.get(bytes)
  if (known !== undefined) return known
  const made = createSecretKey(bytes)
  keyObjects.set(bytes, made)
  return made
}

export const layer: Layer.Layer<Mac.Mac> = Mac.layerWebCryptoWith({
  hmac: (hash, key, data) => new Uint8Array(createHmac(hash.replace("-", "").toLowerCase(), keyObjectOf(key)).update(data).digest())
}).pipe(Layer.provide(SecureRandom.layerWebCrypto))
