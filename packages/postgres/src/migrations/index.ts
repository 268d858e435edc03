/** Kiln's schema, in order. Each migration runs once, inside a transaction, at start-up. */
import * as Migrations from "../Migrations.ts"
import accounts from "./0001_accounts.ts"
import organizations from "./0002_organizations.ts"
import repositories from "./0003_repositories.ts"
import quota from "./0004_quota.ts"
import branches from "./0005_branches.ts"
import releasesPackages from "./0006_releases_packages.ts"
import usageTotals from "./0007_usage_totals.ts"
import repositorySearch from "./0008_repository_search.ts"
import repositoryRedirects from "./0009_repository_redirects.ts"
import jobs from "./0010_jobs.ts"
import webhookDeliveries from "./0011_webhook_deliveries.ts"
import branchSyncPending from "./0012_branch_sync_pending.ts"
import conditionalRequests from "./0013_conditional_requests.ts"
import signinFailures from "./0014_signin_failures.ts"
import jobFairness from "./0015_job_fairness.ts"
import inputLimits from "./0016_input_limits.ts"
import deployKeys from "./0017_deploy_keys.ts"
import lfs from "./0018_lfs.ts"
import pendingDirectorySteps from "./0019_pending_directory_steps.ts"
import releaseCounts from "./0020_release_counts.ts"
import commitStatusContextHash from "./0021_commit_status_context_hash.ts"
import changeTriggers from "./0022_change_triggers.ts"
import contentChanges from "./0023_content_changes.ts"

export const loader: Migrations.Loader = Migrations.fromRecord({
  "0001_accounts": accounts,
  "0002_organizations": organizations,
  "0003_repositories": repositories,
  "0004_quota": quota,
  "0005_branches": branches,
  "0006_releases_packages": releasesPackages,
  "0007_usage_totals": usageTotals,
  "0008_repository_search": repositorySearch,
  "0009_repository_redirects": repositoryRedirects,
  "0010_jobs": jobs,
  "0011_webhook_deliveries": webhookDeliveries,
  "0012_branch_sync_pending": branchSyncPending,
  "0013_conditional_requests": conditionalRequests,
  "0014_signin_failures": signinFailures,
  "0015_job_fairness": jobFairness,
  "0016_input_limits": inputLimits,
  "0017_deploy_keys": deployKeys,
  "0018_lfs": lfs,
  "0019_pending_directory_steps": pendingDirectorySteps,
  "0020_release_counts": releaseCounts,
  "0021_commit_status_context_hash": commitStatusContextHash,
  "0022_change_triggers": changeTriggers,
  "0023_content_changes": contentChanges
})

export const layer = Migrations.layer(loader)
