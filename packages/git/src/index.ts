export { GitStorageLive, makeGitStorage, type GitStorageOptions } from "./GitStorageLive.ts"
export { GitTagsLive, makeGitTags, type GitTagsOptions } from "./GitTagsLive.ts"
export { isStorageName, ownerPath, repositoryPath } from "./RepositoryPaths.ts"
export {
  gitignoreTemplates,
  licenseTemplates,
  readmeTemplates,
  renderInitialFiles,
  type TemplateChoice
} from "./RepositoryTemplates.ts"
export { RepositoryLocks } from "./RepositoryLocks.ts"
export * from "./SmartHttp.ts"
export { archiveCacheSize, pruneArchiveCache, pruningTask as archivePruningTask } from "./ArchiveCache.ts"
export { GitArchivesLive, makeGitArchives, type GitArchivesOptions } from "./GitArchivesLive.ts"
export { GitTransfersLive, makeGitTransfers, type GitTransfersOptions } from "./GitTransfersLive.ts"
export { makeRepositoryDirectories, RepositoryDirectoriesLive } from "./RepositoryDirectoriesLive.ts"
export { type RepositorySnapshot, type SnapshotFile, snapshotRepository } from "./RepositorySnapshot.ts"
export { GitPushCommitsLive } from "./GitPushCommitsLive.ts"
export * from "./GitStreams.ts"
export { KeptListings } from "./KeptListings.ts"
export { allowedSettings, BARE_CONFIG, writeRestoredConfig } from "./RestoredConfig.ts"
export { defaultMaxGitProcesses, GitProcessSlots, GitSlotsBusy } from "./GitProcessSlots.ts"
