export { BackupArchiveError, type BackupArchiveErrorCode } from './archive-error.js'
export { extractArchive } from './extract-archive.js'
export { archiveBytes, backup_format_version, manifest_name, parseManifest, type Manifest, type ManifestFile } from './manifest.js'
export { writeArchive, type BackupArchive, type BackupSource } from './write-archive.js'
