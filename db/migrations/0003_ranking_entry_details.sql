CREATE TABLE `ranking_entry_details` (
	`id_pessoa` int NOT NULL,
	`detalhes` longtext NOT NULL,
	CONSTRAINT `ranking_entry_details_id_pessoa` PRIMARY KEY(`id_pessoa`)
);
--> statement-breakpoint
-- Keep the details of an existing ranking (hand-added: drizzle-kit would only drop the column).
INSERT INTO `ranking_entry_details` (`id_pessoa`, `detalhes`) SELECT `id_pessoa`, `detalhes` FROM `ranking_entries`;
--> statement-breakpoint
ALTER TABLE `ranking_entries` DROP COLUMN `detalhes`;