export * as ConnectionUrl from "./ConnectionUrl.ts"
export * as Database from "./Database.ts"
export * as DataDirLock from "./DataDirLock.ts"
export * as EmbeddedStatistics from "./EmbeddedStatistics.ts"
export * as Migrations from "./Migrations.ts"
export * as PgliteBridge from "./PgliteBridge.ts"
// Named here too, so that the declarations of packages built on this one can name them.
export { DataDirInUse, DataDirLockFailed } from "./DataDirLock.ts"
export { type Client, DatabaseOpenFailed } from "./Database.ts"
