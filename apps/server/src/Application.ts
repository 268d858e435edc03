/**
 * The application without HTTP: domain services over the Postgres stores and the platform
 * adapters. Another Node service can embed Kiln by building this layer over a database.
 */
import { Layer } from "effect"
import { Digest, SecureRandom } from "effect/crypto"
import * as AccessTokens from "@kiln/domain/auth/AccessTokens"
import * as Authentication from "@kiln/domain/auth/Authentication"
import * as PublicKeys from "@kiln/domain/user/PublicKeys"
import * as UserAccounts from "@kiln/domain/user/UserAccounts"
import * as AccessTokenStoreSql from "@kiln/postgres/stores/AccessTokenStoreSql"
import * as PublicKeyStoreSql from "@kiln/postgres/stores/PublicKeyStoreSql"
import * as UserStoreSql from "@kiln/postgres/stores/UserStoreSql"
import * as ScryptPasswordHasher from "./platform/ScryptPasswordHasher.ts"

export const Stores = Layer.mergeAll(UserStoreSql.layer, AccessTokenStoreSql.layer, PublicKeyStoreSql.layer)

export const Platform = Layer.mergeAll(ScryptPasswordHasher.layer, Digest.layerWebCrypto, SecureRandom.layerWebCrypto)

export const Services = Layer.mergeAll(UserAccounts.layer, PublicKeys.layer, AccessTokens.layer, Authentication.layer)

/** Everything the HTTP layer and the CLI use; requires only a migrated SqlClient. */
export const layer = Services.pipe(Layer.provideMerge(Stores), Layer.provideMerge(Platform))
