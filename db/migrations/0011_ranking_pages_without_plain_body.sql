-- Pages are rendered again by the next run; until then requests build them (db/ranking-pages.ts).
DELETE FROM `ranking_pages`;--> statement-breakpoint
ALTER TABLE `ranking_pages` DROP COLUMN `corpo`;
