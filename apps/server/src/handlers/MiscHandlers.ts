import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { SigningKeys } from "@kiln/domain/signing/SigningKeys"
import { Api } from "../api/Api.ts"
import { ApiErrors } from "../http/ApiErrors.ts"

/** The API level Kiln serves: Forgejo 11's, with the suffix Gitea SDKs look for. */
export const SERVER_VERSION = "11.0.1+gitea-1.22.0"

export const MiscHandlers = HttpApiBuilder.group(Api, "miscellaneous", Effect.fnUntraced(function*(handlers) {
  const signingKeys = yield* SigningKeys
  const errors = yield* ApiErrors
  return handlers
    .handle("getVersion", () => Effect.succeed({ version: SERVER_VERSION }))
    .handle("getSigningKey", () =>
      signingKeys.armoredPublicKey().pipe(Effect.mapError((failure) => errors.internal(failure.message))))
}))
