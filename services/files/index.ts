/** The projects area: list, delete, download, archive and publish (docs/files.md; contract 3.15). */
export { RELATIVE_PATH_MAX } from './area';
export { ENTRIES_LISTED, fileListingSchema, listFiles } from './listing';
export { deleteFileEntry } from './removal';
export { openFileDownload, openFolderArchive } from './downloads';
export { publicationSchema, publishProject, sitesDirectory } from './publish';
