/**
 * Kiln's whole HTTP application over the database its settings name, served on the HttpServer that
 * `httpServer` provides: a listening Node server for `pnpm start`, or a mount point in another
 * service (embedding/MountedServer.ts). It exposes the application's services too, and on the
 * embedded database listens on the data directory's control socket (backup/ControlSocket.ts).
 */
import type * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Layer } from "effect"
import * as DataChangesPg from "@kiln/postgres/coordination/DataChangesPg"
import type { HttpServer } from "effect/http"
import * as AdminBootstrap from "./AdminBootstrap.ts"
import * as ControlSocket from "./backup/ControlSocket.ts"
import * as Application from "./Application.ts"
import * as BackgroundWork from "./BackgroundWork.ts"
import * as BranchTableRepair from "./BranchTableRepair.ts"
import * as Database from "./Database.ts"
import * as DirectoryStepRepair from "./DirectoryStepRepair.ts"
import * as HttpApp from "./http/HttpApp.ts"
import * as MarkdownRenderer from "./MarkdownRenderer.ts"
import * as DatabaseMetrics from "./metrics/DatabaseMetrics.ts"
import * as ServerMetrics from "./metrics/ServerMetrics.ts"
import * as SigningKey from "./SigningKey.ts"

/** What NodeHttpServer's layer provides: the server, and the platform services its responses use. */
export type ServerServices = HttpServer.HttpServer | Layer.Success<typeof NodeHttpServer.layerHttpServices>

export const compose = <E, R>(httpServer: Layer.Layer<ServerServices, E, R>) =>
  HttpApp.layer.pipe(
    Layer.provide(AdminBootstrap.layer),
    Layer.provide(BranchTableRepair.layer),
    Layer.provide(DirectoryStepRepair.layer),
    Layer.provide(BackgroundWork.layer),
    // Statements of requests and of background work are measured (when metrics are on).
    Layer.provide(DatabaseMetrics.layer),
    Layer.provideMerge(Application.layer),
    // One data version for the process: the HTTP answers, access decisions and active webhooks kept
    // for it, and the SSH server's sign-ins (each command reads its key again once it moved).
    Layer.provideMerge(DataChangesPg.layer()),
    Layer.merge(ControlSocket.layer),
    Layer.provide(SigningKey.layer),
    Layer.provide(MarkdownRenderer.layer),
    Layer.provide(ServerMetrics.layer),
    // Listening once the database is up, before the application is built: EarlyRequests holds
    // what arrives meanwhile.
    Layer.provide(httpServer),
    Layer.provide(Database.layer)
  )
