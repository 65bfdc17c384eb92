// The one error a restore reports for an archive it will not restore (docs/operations.md,
// "Backup and restore"): damaged (a file's size or checksum, a missing, extra or
// misplaced entry, a truncated or malformed tar stream, a restored directory that does
// not open at the manifest's LSN or does not verify), or in a format this version does
// not read. Nothing of such an archive is left behind.
import { CodedError } from '../coded-error.js'

export type BackupArchiveErrorCode = 'archive_damaged' | 'archive_unsupported'

export class BackupArchiveError extends CodedError<BackupArchiveErrorCode> {}
