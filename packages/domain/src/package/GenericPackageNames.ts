/**
 * What Forgejo's generic registry accepts as package names, versions and file names
 * [routers/api/packages/generic/generic.go]. Go's `\w` is ASCII letters, digits and `_`.
 */

const packageNamePattern = /^[-_+.0-9A-Za-z]+$/
const fileNamePattern = /^[-_+=:;.()[\]{}~!@#$%^& 0-9A-Za-z]+$/

/** Letters, digits and `-_+.`; a single character must be a letter or digit; never `..`. */
export const isValidPackageName = (name: string): boolean =>
  packageNamePattern.test(name) && name !== ".." && (name.length !== 1 || /^[0-9A-Za-z]$/.test(name))

/** Letters, digits, space and `-_+=:;.()[]{}~!@#$%^&`, without leading or trailing space, never `.` or `..`. */
export const isValidFileName = (name: string): boolean =>
  fileNamePattern.test(name) && name.trim() === name && name !== "." && name !== ".."

/** Anything non-empty without leading or trailing white space. */
export const isValidVersion = (version: string): boolean => version !== "" && version.trim() === version

export const INVALID_PACKAGE_NAME_MESSAGE = "invalid package name"
export const INVALID_FILE_NAME_MESSAGE = "invalid filename"
export const INVALID_VERSION_MESSAGE = "invalid package version"
