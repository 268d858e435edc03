/**
 * effect's `Digest` on node:crypto. WebCrypto's digest is asynchronous and hops to the thread
 * pool; hashing a 50-byte token that way costs more than the hash, on every request.
 */
import { Effect, Layer } from "effect"
import { Digest } from "effect/crypto"
import { createHash } from "node:crypto"

const nodeName = (algorithm: Digest.Algorithm): string => algorithm.name.replace("-", "").toLowerCase()

export const layer: Layer.Layer<Digest.Digest> = Layer.succeed(
  Digest.Digest,
  Digest.Digest.of({
    digest: (algorithm, data) => Effect.sync(() => new Uint8Array(createHash(nodeName(algorithm)).update(data).digest())),
    digestHex: (algorithm, data) => Effect.sync(() => createHash(nodeName(algorithm)).update(data).digest("hex"))
  })
)
