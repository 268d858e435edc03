import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { EmbeddedStatistics } from "../src/index.ts"
import * as TestDatabase from "../src/testing/TestDatabase.ts"

const sleep = (ms: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, ms)))

describe("EmbeddedStatistics", () => {
  it.live("analyzes the tables at start and again after each period", () =>
    Effect.scoped(Effect.gen(function*() {
      const context = yield* Layer.build(TestDatabase.layer)
      const sql = yield* SqlClient.SqlClient.pipe(Effect.provide(context))
      yield* sql`CREATE TABLE measured (id int)`
      yield* sql`INSERT INTO measured SELECT g FROM generate_series(1, 500) g`
      // A table never analyzed has reltuples -1.
      const tuples = sql<{ reltuples: number }>`SELECT reltuples FROM pg_class WHERE relname = 'measured'`
      assert.strictEqual(Number((yield* tuples)[0]?.reltuples), -1)

      yield* Layer.build(EmbeddedStatistics.layer("200 millis").pipe(Layer.provide(Layer.succeedContext(context))))
      yield* sleep(100)
      assert.strictEqual(Number((yield* tuples)[0]?.reltuples), 500)

      yield* sql`INSERT INTO measured SELECT g FROM generate_series(501, 1200) g`
      yield* sleep(400)
      assert.strictEqual(Number((yield* tuples)[0]?.reltuples), 1200)
    })), 30_000)
})
