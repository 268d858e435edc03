import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../api/Api.ts"

/** The API level Kiln serves: Forgejo 11's, with the suffix Gitea SDKs look for. */
export const SERVER_VERSION = "11.0.1+gitea-1.22.0"

export const MiscHandlers = HttpApiBuilder.group(Api, "miscellaneous", (handlers) =>
  Effect.succeed(handlers.handle("getVersion", () => Effect.succeed({ version: SERVER_VERSION }))))
