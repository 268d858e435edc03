/**
 * Jobs and JobWorker on a real database (PGlite, or a Postgres server with KILN_TEST_DATABASE_URL,
 * where wake-ups go through NOTIFY): the outbox semantics of enqueue, once per key, retries by the
 * kind's schedule, a dead worker's lease, two workers sharing a burst, periodic tasks and re-runs,
 * a job that keeps killing its worker parked, fair shares per key, and runs that defer.
 * Workers poll only every minute here, so a job that runs at all was woken.
 */
import { assert, layer } from "@effect/vitest"
import { Clock, Deferred, Effect, Layer, Ref, Scope, Tracer } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { type Job, JobDeferred, JobFailed, type JobHandler, Jobs } from "@kiln/domain/coordination/Jobs"
import * as PeriodicTask from "@kiln/domain/coordination/PeriodicTask"
import * as RetrySchedule from "@kiln/domain/coordination/RetrySchedule"
import * as JobsSql from "../../src/coordination/JobsSql.ts"
import * as JobWorker from "../../src/coordination/JobWorker.ts"
import { layer as migrations } from "../../src/migrations/index.ts"
import * as TestDatabase from "../../src/testing/TestDatabase.ts"

const onServer = process.env["KILN_TEST_DATABASE_URL"] !== undefined
const Database = migrations.pipe(Layer.provideMerge(TestDatabase.layer))
const JobsLive = JobsSql.layer({ notify: onServer }).pipe(Layer.provideMerge(Database))

const workerOptions = { concurrency: 8, pollInterval: 60_000, listen: onServer }

/** Runs `body` with workers for `handlers` running (one per entry of `workers`), then stops them. */
const withWorkers = <A, E, R, H>(
  handlers: ReadonlyArray<JobHandler<H>>,
  body: Effect.Effect<A, E, R>,
  workers = 1
) =>
  Effect.scoped(Effect.gen(function*() {
    for (let i = 0; i < workers; i++) {
      yield* Layer.build(JobWorker.layer(handlers, workerOptions))
    }
    return yield* body
  }))

const eventually = <A, E, R>(check: Effect.Effect<A | undefined, E, R>): Effect.Effect<A, E, R> =>
  Effect.gen(function*() {
    for (;;) {
      const value = yield* check
      if (value !== undefined) return value
      yield* Effect.sleep("20 millis")
    }
  })

const recording = (kind: string, seen: Ref.Ref<ReadonlyArray<Job>>, outcome: (job: Job) => boolean = () => true): JobHandler => ({
  kind,
  retry: RetrySchedule.exponential({ initial: 50, max: 200, maxAttempts: 3 }),
  lease: 10_000,
  run: (job) =>
    Effect.andThen(
      Ref.update(seen, (jobs) => [...jobs, job]),
      outcome(job) ? Effect.void : Effect.fail(new JobFailed({ message: `refused ${job.key}` }))
    )
})

const jobRow = (kind: string, key: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<{ attempts: unknown; done: boolean; failed: boolean; last_error: string | null; leased: boolean }>`
      SELECT attempts, done_at IS NOT NULL AS done, failed, last_error, locked_until IS NOT NULL AS leased
      FROM jobs WHERE kind = ${kind} AND key = ${key}`
    return row
  })

layer(JobsLive, { timeout: "120 seconds" })("Jobs on PostgreSQL", (it) => {
  it.effect("a job enqueued in a rolled-back transaction never exists; a committed one runs once with its payload", () =>
    TestClock.withLive(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const jobs = yield* Jobs
      const seen = yield* Ref.make<ReadonlyArray<Job>>([])
      yield* withWorkers([recording("outbox", seen)], Effect.gen(function*() {
        yield* sql.withTransaction(
          Effect.andThen(jobs.enqueue("outbox", "rolled-back", { n: 1 }), Effect.fail("abort"))
        ).pipe(Effect.ignore)
        yield* sql.withTransaction(jobs.enqueue("outbox", "committed", { n: 2, text: "é" }))
        yield* eventually(Effect.map(jobRow("outbox", "committed"), (row) => row?.done ? row : undefined))
      }))
      const ran = yield* Ref.get(seen)
      assert.deepStrictEqual(ran.map((job) => [job.key, job.payload, job.attempts]), [["committed", { n: 2, text: "é" }, 1]])
      assert.strictEqual(yield* jobRow("outbox", "rolled-back"), undefined)
    })))

  it.effect("a kind and key is taken once: enqueuing it again does nothing, even after it is done", () =>
    TestClock.withLive(Effect.gen(function*() {
      const jobs = yield* Jobs
      const seen = yield* Ref.make<ReadonlyArray<Job>>([])
      assert.isTrue(yield* jobs.enqueue("once", "k", 1))
      assert.isFalse(yield* jobs.enqueue("once", "k", 2))
      yield* withWorkers([recording("once", seen)], Effect.gen(function*() {
        yield* eventually(Effect.map(jobRow("once", "k"), (row) => row?.done ? row : undefined))
        assert.isFalse(yield* jobs.enqueue("once", "k", 3))
        yield* Effect.sleep("200 millis")
      }))
      assert.deepStrictEqual((yield* Ref.get(seen)).map((job) => job.payload), [1])
    })))

  it.effect("a failing job is retried by its kind's schedule and fails for good after the last attempt", () =>
    TestClock.withLive(Effect.gen(function*() {
      const jobs = yield* Jobs
      const seen = yield* Ref.make<ReadonlyArray<Job>>([])
      yield* withWorkers([recording("flaky", seen, (job) => job.key === "second-try" && job.attempts === 2)], Effect.gen(function*() {
        yield* jobs.enqueue("flaky", "second-try", null)
        yield* jobs.enqueue("flaky", "never", null)
        yield* eventually(Effect.map(jobRow("flaky", "second-try"), (row) => row?.done ? row : undefined))
        yield* eventually(Effect.map(jobRow("flaky", "never"), (row) => row?.done ? row : undefined))
      }))
      const succeeded = yield* jobRow("flaky", "second-try")
      assert.deepStrictEqual([Number(succeeded?.attempts), succeeded?.failed, succeeded?.last_error], [2, false, null])
      const failed = yield* jobRow("flaky", "never")
      assert.deepStrictEqual([Number(failed?.attempts), failed?.failed, failed?.last_error], [3, true, "refused never"])
      const attempts = (yield* Ref.get(seen)).filter((job) => job.key === "never").map((job) => job.attempts)
      assert.deepStrictEqual(attempts, [1, 2, 3])
    })))

  it.effect("a job leased by a worker that died is run by another once the lease has passed", () =>
    TestClock.withLive(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const jobs = yield* Jobs
      const seen = yield* Ref.make<ReadonlyArray<Job>>([])
      yield* jobs.enqueue("leased", "orphan", null)
      yield* sql`UPDATE jobs SET locked_by = 'dead', locked_until = now() + interval '300 milliseconds', attempts = 1
        WHERE kind = 'leased'`
      yield* withWorkers([recording("leased", seen)], Effect.gen(function*() {
        yield* eventually(Effect.map(jobRow("leased", "orphan"), (row) => row?.done ? row : undefined))
      }))
      assert.deepStrictEqual((yield* Ref.get(seen)).map((job) => job.attempts), [2])
    })))

  it.effect("two workers share a burst: every job runs exactly once", () =>
    TestClock.withLive(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const jobs = yield* Jobs
      const seen = yield* Ref.make<ReadonlyArray<Job>>([])
      const slow: JobHandler = {
        ...recording("burst", seen),
        run: (job) => Effect.andThen(Effect.sleep("2 millis"), Ref.update(seen, (all) => [...all, job]))
      }
      yield* withWorkers([slow], Effect.gen(function*() {
        for (let batch = 0; batch < 10; batch++) {
          yield* sql.withTransaction(Effect.forEach(
            Array.from({ length: 30 }, (_, i) => batch * 30 + i),
            (n) => jobs.enqueue("burst", String(n), n)
          ))
        }
        yield* eventually(Effect.map(
          sql<{ n: unknown }>`SELECT count(*) AS n FROM jobs WHERE kind = 'burst' AND done_at IS NOT NULL`,
          ([row]) => Number(row?.n) === 300 ? true : undefined
        ))
      }), 2)
      const keys = (yield* Ref.get(seen)).map((job) => job.key)
      assert.strictEqual(keys.length, 300)
      assert.strictEqual(new Set(keys).size, 300)
    })))

  it.effect("a periodic task is scheduled once per due time however many processes schedule it", () =>
    TestClock.withLive(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const runs = yield* Ref.make(0)
      const task = PeriodicTask.make({ kind: "tick", every: 300, lease: 1_000, run: Ref.update(runs, (n) => n + 1) })
      // Three processes scheduling at one instant: reading the clock each, they can fall on either
      // side of a due time and rightly make two (CI saw that twice).
      const live = yield* Clock.Clock
      const now = live.currentTimeMillisUnsafe()
      const instant: Clock.Clock = {
        currentTimeMillisUnsafe: () => now,
        currentTimeMillis: Effect.succeed(now),
        currentTimeNanosUnsafe: () => BigInt(now) * 1_000_000n,
        currentTimeNanos: Effect.succeed(BigInt(now) * 1_000_000n),
        monotonicTimeNanosUnsafe: () => live.monotonicTimeNanosUnsafe(),
        monotonicTimeNanos: live.monotonicTimeNanos,
        sleep: (duration) => live.sleep(duration)
      }
      yield* Effect.all([task.schedule, task.schedule, task.schedule], { concurrency: "unbounded" }).pipe(
        Effect.provideService(Clock.Clock, instant)
      )
      const pending = yield* sql<{ key: string }>`SELECT key FROM jobs WHERE kind = 'tick'`
      assert.strictEqual(pending.length, 1)
      yield* withWorkers([task.handler], Effect.gen(function*() {
        yield* eventually(Effect.map(Ref.get(runs), (n) => n >= 2 ? n : undefined))
      }), 2)
      const rows = yield* sql<{ key: string }>`SELECT key FROM jobs WHERE kind = 'tick' ORDER BY key`
      const dueTimes = rows.map((row) => Date.parse(row.key))
      assert.isTrue(dueTimes.every((time) => time % 300 === 0))
      assert.strictEqual(new Set(dueTimes).size, dueTimes.length)
    })))

  it("the next due time is the next multiple of the period", () => {
    assert.strictEqual(PeriodicTask.nextDueTime(1000, 0), 1000)
    assert.strictEqual(PeriodicTask.nextDueTime(1000, 999), 1000)
    assert.strictEqual(PeriodicTask.nextDueTime(1000, 1000), 2000)
  })

  it.effect("rerun makes a done job due again with its attempts from zero", () =>
    TestClock.withLive(Effect.gen(function*() {
      const jobs = yield* Jobs
      const seen = yield* Ref.make<ReadonlyArray<Job>>([])
      assert.isFalse(yield* jobs.rerun("again", "missing"))
      yield* jobs.enqueue("again", "k", "p")
      yield* withWorkers([recording("again", seen)], Effect.gen(function*() {
        yield* eventually(Effect.map(jobRow("again", "k"), (row) => row?.done ? row : undefined))
        assert.isTrue(yield* jobs.rerun("again", "k"))
        yield* eventually(Effect.map(Ref.get(seen), (all) => all.length === 2 ? all : undefined))
      }))
      assert.deepStrictEqual((yield* Ref.get(seen)).map((job) => [job.payload, job.attempts]), [["p", 1], ["p", 1]])
    })))

  it.effect("a job whose runs keep ending with their worker is parked after a few, and never claimed again", () =>
    TestClock.withLive(Effect.gen(function*() {
      const jobs = yield* Jobs
      const claims = yield* Ref.make(0)
      const claimed = yield* Deferred.make<void>()
      // The run never ends and the worker's only slot stays taken: its process as good as died,
      // having written nothing. The next worker takes the job over once the lease has passed.
      const dying: JobHandler = {
        kind: "poison",
        retry: RetrySchedule.exponential({ initial: 10, max: 10, maxAttempts: 100 }),
        lease: 200,
        run: () => Effect.andThen(Ref.update(claims, (n) => n + 1), Effect.andThen(Deferred.succeed(claimed, undefined), Effect.uninterruptible(Effect.never)))
      }
      yield* jobs.enqueue("poison", "p", null)
      for (let worker = 1; worker <= 6; worker++) {
        // Scopes left open on purpose: a dead process releases nothing.
        const scope = yield* Scope.make()
        // Without a listener: a dead process holds no connection either.
        yield* Layer.build(JobWorker.layer([dying], { concurrency: 1, pollInterval: 50, listen: false })).pipe(Scope.provide(scope))
        yield* eventually(Effect.map(jobRow("poison", "p"), (row) => row?.done === true || Number(row?.attempts) >= worker ? true : undefined))
        if ((yield* jobRow("poison", "p"))?.done === true) break
        yield* Effect.sleep("250 millis")
      }
      const row = yield* jobRow("poison", "p")
      assert.deepStrictEqual([row?.done, row?.failed, row?.leased, row?.last_error], [true, true, false, JobWorker.parkedMessage])
      assert.strictEqual(yield* Ref.get(claims), JobWorker.MAX_ABANDONED_RUNS)
      // Neither a fresh worker nor time brings it back.
      yield* withWorkers([dying], Effect.sleep("500 millis"))
      assert.strictEqual(yield* Ref.get(claims), JobWorker.MAX_ABANDONED_RUNS)
      assert.isTrue(yield* Deferred.isDone(claimed))
    })))

  it.effect("one key's jobs take at most its share of the slots: another key's job runs while they hang", () =>
    TestClock.withLive(Effect.gen(function*() {
      const jobs = yield* Jobs
      const release = yield* Deferred.make<void>()
      const running = yield* Ref.make(0)
      const most = yield* Ref.make(0)
      const otherRan = yield* Deferred.make<number>()
      const shared: JobHandler = {
        kind: "shared",
        retry: RetrySchedule.never,
        lease: 60_000,
        perKeyConcurrency: 2,
        run: (job) =>
          job.key === "other"
            ? Effect.andThen(Ref.get(running), (n) => Deferred.succeed(otherRan, n))
            : Effect.gen(function*() {
              const now = yield* Ref.updateAndGet(running, (n) => n + 1)
              yield* Ref.update(most, (m) => Math.max(m, now))
              yield* Deferred.await(release)
              yield* Ref.update(running, (n) => n - 1)
            })
      }
      for (let i = 0; i < 12; i++) yield* jobs.enqueue("shared", `busy-${i}`, null, { fairnessKey: "owner:busy" })
      yield* jobs.enqueue("shared", "other", null, { fairnessKey: "owner:other" })
      yield* Effect.scoped(Effect.gen(function*() {
        yield* Layer.build(JobWorker.layer([shared], { ...workerOptions, concurrency: 4 }))
        // The other owner's job runs while two of the busy owner's hang (without the share, all
        // four slots would hang and it would wait for them).
        const hangingMeanwhile = yield* Deferred.await(otherRan).pipe(
          Effect.timeoutOrElse({ duration: "20 seconds", orElse: () => Effect.die("the other owner's job waited for the busy owner's") })
        )
        assert.strictEqual(hangingMeanwhile, 2)
        yield* Deferred.succeed(release, undefined)
        yield* eventually(Effect.map(
          SqlClient.SqlClient.pipe(Effect.flatMap((sql) => sql<{ n: unknown }>`SELECT count(*) AS n FROM jobs WHERE kind = 'shared' AND done_at IS NULL`)),
          ([row]) => Number(row?.n) === 0 ? true : undefined
        ))
      }))
      assert.strictEqual(yield* Ref.get(most), 2)
    })))

  it.effect("a worker with nothing due sleeps until its poll or a wake-up, asking the database nothing meanwhile", () =>
    TestClock.withLive(Effect.gen(function*() {
      const jobs = yield* Jobs
      let statements = 0
      const counting = Tracer.make({
        span: (options) => {
          if (options.kind === "client") statements++
          return new Tracer.NativeSpan(options)
        }
      })
      // A key at its limit with its other jobs waiting, and then nothing pending at all: either way
      // there is no due time to wait for ("no row" once read as "due now", a claim every millisecond).
      const release = yield* Deferred.make<void>()
      const limited: JobHandler = {
        kind: "limited",
        retry: RetrySchedule.never,
        lease: 60_000,
        perKeyConcurrency: 1,
        run: () => Deferred.await(release)
      }
      yield* jobs.enqueue("limited", "running", null, { fairnessKey: "owner:one" })
      yield* jobs.enqueue("limited", "waiting", null, { fairnessKey: "owner:one" })
      yield* Effect.scoped(Effect.gen(function*() {
        yield* Layer.build(JobWorker.layer([limited], workerOptions)).pipe(Effect.withTracer(counting))
        yield* Effect.sleep("300 millis")
        const atLimit = statements
        yield* Effect.sleep("500 millis")
        assert.isAtMost(statements - atLimit, 2, "statements while a key waited at its limit")
        yield* Deferred.succeed(release, undefined)
        yield* eventually(Effect.map(jobRow("limited", "waiting"), (row) => row?.done ? row : undefined))
        yield* Effect.sleep("300 millis")
        const idle = statements
        yield* Effect.sleep("500 millis")
        assert.isAtMost(statements - idle, 2, "statements with nothing pending")
      }))
    })))

  it.effect("a worker is woken by its own freed slot, whatever other workers share its process", () =>
    TestClock.withLive(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const jobs = yield* Jobs
      const started = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      const seen = yield* Ref.make<ReadonlyArray<string>>([])
      // One job of the key at a time, so the second starts only when the first's slot is freed,
      // and with a minute's poll only a wake-up starts it. The other workers have their one slot
      // taken by a run that never ends and sleep waiting for wake-ups, since before this worker did;
      // when a process's workers shared one queue of signals, they took this worker's.
      const oneAtATime: JobHandler = {
        kind: "pair",
        retry: RetrySchedule.never,
        lease: 60_000,
        perKeyConcurrency: 1,
        run: (job) =>
          Effect.gen(function*() {
            if (job.key === "first") {
              yield* Deferred.succeed(started, undefined)
              yield* Deferred.await(release)
            }
            yield* Ref.update(seen, (all) => [...all, job.key])
          })
      }
      const stuck: JobHandler = { kind: "stuck", retry: RetrySchedule.never, lease: 60_000, run: () => Effect.never }
      yield* Effect.scoped(Effect.gen(function*() {
        for (let i = 0; i < 3; i++) {
          yield* jobs.enqueue("stuck", `stuck-${i}`, null)
          yield* Layer.build(JobWorker.layer([stuck], { ...workerOptions, concurrency: 1 }))
        }
        yield* eventually(Effect.map(
          sql<{ n: unknown }>`SELECT count(*) AS n FROM jobs WHERE kind = 'stuck' AND locked_by IS NOT NULL`,
          ([row]) => Number(row?.n) === 3 ? true : undefined
        ))
        yield* jobs.enqueue("pair", "first", null, { fairnessKey: "owner:one" })
        yield* jobs.enqueue("pair", "second", null, { fairnessKey: "owner:one" })
        yield* Layer.build(JobWorker.layer([oneAtATime], workerOptions))
        yield* Deferred.await(started)
        yield* Effect.sleep("200 millis")
        yield* Deferred.succeed(release, undefined)
        yield* eventually(Effect.map(Ref.get(seen), (done) => done.length === 2 ? done : undefined)).pipe(
          Effect.timeoutOrElse({ duration: "20 seconds", orElse: () => Effect.die("the second job waited for the poll: the freed slot's wake-up went to another worker") })
        )
      }))
      assert.deepStrictEqual(yield* Ref.get(seen), ["first", "second"])
    })))

  it.effect("a run that defers gives its slot back and is not counted as an attempt", () =>
    TestClock.withLive(Effect.gen(function*() {
      const jobs = yield* Jobs
      const seen = yield* Ref.make<ReadonlyArray<string>>([])
      const patient: JobHandler = {
        kind: "patient",
        retry: RetrySchedule.never,
        lease: 60_000,
        run: (job) =>
          Effect.gen(function*() {
            const before = yield* Ref.getAndUpdate(seen, (all) => [...all, `${job.key}:${job.attempts}`])
            // `waits` defers until `first` has run; with one slot, `first` can run only if the slot came back.
            if (job.key === "waits" && !before.some((entry) => entry.startsWith("first"))) return yield* new JobDeferred({ delay: 30 })
          })
      }
      yield* jobs.enqueue("patient", "waits", null)
      yield* jobs.enqueue("patient", "first", null, { runAt: Date.now() + 100 })
      yield* withWorkers([patient], eventually(Effect.map(jobRow("patient", "waits"), (row) => row?.done ? row : undefined)))
      const waits = yield* jobRow("patient", "waits")
      assert.deepStrictEqual([Number(waits?.attempts), waits?.failed], [1, false])
      const order = yield* Ref.get(seen)
      assert.strictEqual(order.at(-1), "waits:1")
      assert.isTrue(order.includes("first:1"))
    })))
})
