/**
 * The instance signing key as a layer. Building it generates or loads the key, so a bad key file, an
 * unreadable key or a wrong passphrase fails the layer (and start-up) with `SigningKeyStartupFailed`.
 */
import { Effect, Layer } from "effect"
import { SigningKeys } from "@kiln/domain/signing/SigningKeys"
import { generatedKey, loadProvidedKey } from "./InstanceKeyFile.ts"
import { noSigningKey, openPgpSigningKey } from "./OpenPgpSigningKey.ts"
import type { SigningKeysConfig } from "./SigningKeysConfig.ts"

export const SigningKeysLive = (config: SigningKeysConfig) =>
  Layer.effect(
    SigningKeys,
    config.mode === "none"
      ? Effect.succeed(noSigningKey)
      : (config.mode === "generate"
        ? generatedKey(config.dataDir, config.name, config.email)
        : loadProvidedKey(config.mode.path, config.passphrase)
      ).pipe(Effect.map((privateKey) => openPgpSigningKey(privateKey, config.name, config.email)))
  )
