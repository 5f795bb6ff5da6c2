/** The projects area: list, delete, download, archive and publish (docs/files.md; contract 3.15). */
export { type FilesDeps, RELATIVE_PATH_MAX } from './area';
export { ENTRIES_LISTED, type FileEntry, fileEntrySchema, type FileListing, fileListingSchema, listFiles } from './listing';
export { deleteFileEntry } from './removal';
export { type FileDownload, type FolderArchive, openFileDownload, openFolderArchive } from './downloads';
export { type Publication, publicationSchema, type PublishDeps, publishProject, sitePath, sitesDirectory } from './publish';
