/** The instance signing key from the configuration (KILN_SIGNING_*), kept in the data dir. */
import { Effect, Layer } from "effect"
import { SigningKeysLive } from "@kiln/openpgp"
import { KilnConfig } from "./config/KilnConfig.ts"

export const layer = Layer.unwrap(Effect.gen(function*() {
  const config = yield* KilnConfig
  return SigningKeysLive({
    mode: config.signingKey,
    name: config.signingName,
    email: config.signingEmail,
    passphrase: config.signingKeyPassphrase,
    dataDir: config.dataDir
  })
}))
