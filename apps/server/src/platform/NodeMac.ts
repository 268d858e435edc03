/** effect's `Mac` with HMAC computed by node:crypto (synchronous; webhook signatures are small). */
import { Layer } from "effect"
import { Mac, SecureRandom } from "effect/crypto"
import { createHmac } from "node:crypto"

export const layer: Layer.Layer<Mac.Mac> = Mac.layerWebCryptoWith({
  hmac: (hash, key, data) => new Uint8Array(createHmac(hash.replace("-", "").toLowerCase(), key).update(data).digest())
}).pipe(Layer.provide(SecureRandom.layerWebCrypto))
