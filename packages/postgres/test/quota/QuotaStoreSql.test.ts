/**
 * The QuotaStore contract against the SQL store, on PGlite (or Postgres with KILN_TEST_DATABASE_URL);
 * the assertions live in the shared contract suite.
 * The contract rebuilds its layer per test and wants an empty store each time: every build gets a
 * fresh database with two accounts (ids 1 and 2 in a new database).
 */
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { quotaStoreContract } from "../../../domain/test/quota/QuotaStoreContract.ts"
import { layer as migrations } from "../../src/migrations/index.ts"
import * as QuotaStoreSql from "../../src/stores/QuotaStoreSql.ts"
import * as TestDatabase from "../../src/testing/TestDatabase.ts"

const TwoAccounts = Layer.effectDiscard(Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`INSERT INTO users (name, lower_name, kind, visibility, created_at, updated_at)
    VALUES ('alice', 'alice', 'individual', 'public', 0, 0), ('bob', 'bob', 'organization', 'public', 0, 0)`
}))

const Store = QuotaStoreSql.layer.pipe(
  Layer.provideMerge(TwoAccounts),
  Layer.provide(migrations.pipe(Layer.provideMerge(TestDatabase.layer))),
  Layer.orDie
)

quotaStoreContract("postgres", Store, { users: [1, 2] })
