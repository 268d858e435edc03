import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import * as JobsSql from "../src/coordination/JobsSql.ts"
import * as JobWorker from "../src/coordination/JobWorker.ts"
import { EmbeddedStatistics } from "../src/index.ts"
import { layer as migrations } from "../src/migrations/index.ts"
import * as TestDatabase from "../src/testing/TestDatabase.ts"

const sleep = (ms: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, ms)))

describe("EmbeddedStatistics", () => {
  it.live("analyzes the tables once per due time, run by the job worker", () =>
    Effect.scoped(Effect.gen(function*() {
      const context = yield* Layer.build(JobsSql.layer({ notify: false }).pipe(Layer.provideMerge(migrations.pipe(Layer.provideMerge(TestDatabase.layer)))))
      const sql = yield* SqlClient.SqlClient.pipe(Effect.provide(context))
      yield* sql`CREATE TABLE measured (id int)`
      yield* sql`INSERT INTO measured SELECT g FROM generate_series(1, 500) g`
      // A table never analyzed has reltuples -1.
      const tuples = sql<{ reltuples: number }>`SELECT reltuples FROM pg_class WHERE relname = 'measured'`
      assert.strictEqual(Number((yield* tuples)[0]?.reltuples), -1)

      const task = EmbeddedStatistics.task(300)
      yield* task.schedule.pipe(Effect.provide(context))
      yield* Layer.build(JobWorker.layer([task.handler], { concurrency: 1, pollInterval: 50, listen: false }).pipe(
        Layer.provide(Layer.succeedContext(context))
      ))
      const analyzed = (count: number) =>
        Effect.gen(function*() {
          for (let attempt = 0; attempt < 100; attempt++) {
            if (Number((yield* tuples)[0]?.reltuples) === count) return true
            yield* sleep(50)
          }
          return false
        })
      assert.isTrue(yield* analyzed(500))
      yield* sql`INSERT INTO measured SELECT g FROM generate_series(501, 1200) g`
      assert.isTrue(yield* analyzed(1200))
      // Once per due time, each a job of its own (on a server, autovacuum may analyze meanwhile too).
      const runs = sql<{ n: unknown }>`SELECT count(*) AS n FROM jobs WHERE kind = 'embedded-analyze' AND done_at IS NOT NULL`
      for (let attempt = 0; attempt < 100 && Number((yield* runs)[0]?.n) < 2; attempt++) yield* sleep(50)
      assert.isAtLeast(Number((yield* runs)[0]?.n), 2)
    })), 30_000)
})
