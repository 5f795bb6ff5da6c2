ALTER TABLE `ranking_pages` ADD `total` int NOT NULL;--> statement-breakpoint
ALTER TABLE `ranking_pages` ADD `resposta_gzip` longblob NOT NULL;