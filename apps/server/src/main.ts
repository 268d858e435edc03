/** `pnpm start`: the Kiln server on the configured database and port. */
// The modules themselves, not the package index: the index also loads the redis client, the
// cluster runtime and undici, which Kiln never uses (~20 MB of resident memory).
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Cause, Duration, Effect, Exit, Layer, Logger, Runtime } from "effect"
import * as ArrayBufferReclaimer from "./platform/ArrayBufferReclaimer.ts"
import * as KilnConfig from "./config/KilnConfig.ts"
import * as DirectRoutes from "./http/DirectRoutes.ts"
import { createNodeServer } from "./http/NodeServer.ts"
import * as KilnServer from "./KilnServer.ts"
import * as ProcessFailures from "./platform/ProcessFailures.ts"
import * as ServSocket from "./ssh/ServSocket.ts"
import * as SshServer from "./ssh/SshServer.ts"
import * as ServerMetrics from "./metrics/ServerMetrics.ts"
import * as StartupMemoryRelease from "./platform/StartupMemoryRelease.ts"

const HttpServerLive = Layer.unwrap(Effect.gen(function*() {
  const config = yield* KilnConfig.KilnConfig
  return DirectRoutes.serving((directRoutes) =>
    NodeHttpServer.layer(() => createNodeServer({ idleMillis: config.httpIdleTimeoutSeconds * 1000, directRoutes }), {
      port: config.httpPort,
      host: config.httpHost,
      // On SIGTERM: stop accepting, let in-flight requests (clones and pushes included) finish for
      // this long, then interrupt what is left.
      gracefulShutdownTimeout: Duration.seconds(config.shutdownTimeout)
    }))
}))

export const ServerLive = Layer.mergeAll(SshServer.layer, ServSocket.layer, StartupMemoryRelease.layer).pipe(
  // The built-in SSH server over the same application (KILN_SSH_PORT; none when 0), the socket
  // through which `kiln serv` reaches this process on the embedded database, and, once the server
  // is up (these are built after it), what its start used given back.
  Layer.provideMerge(KilnServer.compose(HttpServerLive)),
  Layer.provide(ServerMetrics.layer),
  Layer.provideMerge(KilnConfig.layer),
  Layer.merge(ArrayBufferReclaimer.layer()),
  // Logs an unhandled rejection and keeps serving; logs an uncaught exception and exits 1.
  Layer.merge(ProcessFailures.layer),
  // One JSON object per line: the access log and every other log line are machine-readable.
  Layer.provide(Logger.layer([Logger.consoleJson]))
)

/**
 * A stop asked for by a signal (SIGTERM, SIGINT) is the server's normal end: exit 0 once it has
 * drained and released everything. Failures keep the default codes.
 */
const teardown: Runtime.Teardown = (exit, onExit) =>
  Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause) ? onExit(0) : Runtime.defaultTeardown(exit, onExit)

NodeRuntime.runMain(
  Layer.launch(ServerLive).pipe(
    // Kiln exports no traces: with tracing on, a span would be made and dropped for every request and query.
    Effect.withTracerEnabled(false)
  ),
  { teardown }
)
