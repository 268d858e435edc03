/**
 * The units of a repository after an EditRepoOption, as Forgejo's `updateRepoUnits` decides them
 * [routers/api/v1/repo/repo.go]. Issues and wiki are each either built in or external:
 * - the built-in unit counts as "on" for the decision, an external one does not; an edit that leaves
 *   `has_issues`/`has_wiki` out keeps the built-in unit's state;
 * - turned on (or kept on) with `external_tracker`/`external_wiki`, the unit becomes external, after
 *   its URL is checked (422 otherwise); without, it becomes built-in again;
 * - a built-in unit turned on again starts from Forgejo's defaults (its row was deleted when it
 *   was turned off): time tracker, contributors-only tracking and dependencies on, wiki not
 *   globally editable, unless the edit says otherwise.
 * Checks run before anything is stored, so a refused edit changes nothing.
 */
import { Effect } from "effect"
import { Invalid } from "../errors.ts"
import { isValidExternalTrackerFormat, isValidExternalUrl } from "../org/HttpUrl.ts"
import { type UnitKey, unitKeys } from "../org/Unit.ts"
import type { EditRepositoryInput } from "./Repositories.ts"
import {
  defaultIssuesSettings,
  isMergeStyle,
  isUpdateStyle,
  type IssuesSettings,
  noExternalTracker,
  type RepositoryUnits
} from "./Repository.ts"

export const EXTERNAL_TRACKER_URL_MESSAGE = "External tracker URL not valid"
export const EXTERNAL_TRACKER_FORMAT_MESSAGE = "External tracker URL format not valid"
export const EXTERNAL_WIKI_URL_MESSAGE = "Invalid external wiki URL"

export const toggledUnits = (units: RepositoryUnits, input: EditRepositoryInput): Effect.Effect<RepositoryUnits, Invalid> =>
  Effect.gen(function*() {
    const enabled = new Set(units.enabled)
    const toggle = (unit: UnitKey, on: boolean | undefined) => {
      if (on === true) enabled.add(unit)
      if (on === false) enabled.delete(unit)
    }

    let issues: IssuesSettings = units.issues
    let externalTracker = units.externalTracker
    const hadIssues = units.enabled.includes("repo.issues")
    const wantsIssues = input.hasIssues ?? hadIssues
    if (hadIssues || wantsIssues) {
      if (wantsIssues && input.externalTracker !== undefined) {
        if (!isValidExternalUrl(input.externalTracker.url)) return yield* new Invalid({ message: EXTERNAL_TRACKER_URL_MESSAGE })
        if (input.externalTracker.format !== "" && !isValidExternalTrackerFormat(input.externalTracker.format)) {
          return yield* new Invalid({ message: EXTERNAL_TRACKER_FORMAT_MESSAGE })
        }
        toggle("repo.issues", false)
        toggle("repo.ext_issues", true)
        externalTracker = input.externalTracker
      } else if (wantsIssues) {
        toggle("repo.ext_issues", false)
        toggle("repo.issues", true)
        externalTracker = noExternalTracker
        issues = input.internalTracker !== undefined
          ? {
            enableTimeTracker: input.internalTracker.enableTimeTracker,
            allowOnlyContributorsToTrackTime: input.internalTracker.allowOnlyContributorsToTrackTime,
            enableDependencies: input.internalTracker.enableIssueDependencies
          }
          : hadIssues
          ? units.issues
          : defaultIssuesSettings
      } else {
        toggle("repo.ext_issues", false)
        toggle("repo.issues", false)
        externalTracker = noExternalTracker
      }
    }

    let wikiGloballyEditable = units.wikiGloballyEditable
    let externalWikiUrl = units.externalWikiUrl
    const hadWiki = units.enabled.includes("repo.wiki")
    const wantsWiki = input.hasWiki ?? hadWiki
    if (hadWiki || wantsWiki) {
      if (wantsWiki && input.externalWikiUrl !== undefined) {
        if (!isValidExternalUrl(input.externalWikiUrl)) return yield* new Invalid({ message: EXTERNAL_WIKI_URL_MESSAGE })
        toggle("repo.wiki", false)
        toggle("repo.ext_wiki", true)
        externalWikiUrl = input.externalWikiUrl
      } else if (wantsWiki) {
        toggle("repo.ext_wiki", false)
        toggle("repo.wiki", true)
        externalWikiUrl = ""
        wikiGloballyEditable = input.globallyEditableWiki ?? (hadWiki && units.wikiGloballyEditable)
      } else {
        toggle("repo.ext_wiki", false)
        toggle("repo.wiki", false)
        externalWikiUrl = ""
      }
    }

    toggle("repo.pulls", input.hasPullRequests)
    toggle("repo.projects", input.hasProjects)
    toggle("repo.releases", input.hasReleases)
    toggle("repo.packages", input.hasPackages)
    toggle("repo.actions", input.hasActions)
    const pick = <A>(value: A | undefined, current: A): A => value === undefined ? current : value
    const { pulls } = units
    return {
      enabled: unitKeys.filter((unit) => enabled.has(unit)),
      issues,
      pulls: !enabled.has("repo.pulls") ? pulls : {
        ignoreWhitespaceConflicts: pick(input.ignoreWhitespaceConflicts, pulls.ignoreWhitespaceConflicts),
        allowMerge: pick(input.allowMerge, pulls.allowMerge),
        allowRebase: pick(input.allowRebase, pulls.allowRebase),
        allowRebaseMerge: pick(input.allowRebaseMerge, pulls.allowRebaseMerge),
        allowSquash: pick(input.allowSquash, pulls.allowSquash),
        allowFastForwardOnly: pick(input.allowFastForwardOnly, pulls.allowFastForwardOnly),
        allowManualMerge: pick(input.allowManualMerge, pulls.allowManualMerge),
        autodetectManualMerge: pick(input.autodetectManualMerge, pulls.autodetectManualMerge),
        allowRebaseUpdate: pick(input.allowRebaseUpdate, pulls.allowRebaseUpdate),
        defaultDeleteBranchAfterMerge: pick(input.defaultDeleteBranchAfterMerge, pulls.defaultDeleteBranchAfterMerge),
        defaultMergeStyle: input.defaultMergeStyle !== undefined && isMergeStyle(input.defaultMergeStyle)
          ? input.defaultMergeStyle
          : pulls.defaultMergeStyle,
        defaultUpdateStyle: input.defaultUpdateStyle !== undefined && isUpdateStyle(input.defaultUpdateStyle)
          ? input.defaultUpdateStyle
          : pulls.defaultUpdateStyle,
        defaultAllowMaintainerEdit: pick(input.defaultAllowMaintainerEdit, pulls.defaultAllowMaintainerEdit)
      },
      wikiGloballyEditable,
      externalTracker,
      externalWikiUrl
    }
  })
