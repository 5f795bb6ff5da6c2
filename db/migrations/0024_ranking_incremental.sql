CREATE TABLE `ranking_run_persons` (
	`id_pessoa` int NOT NULL,
	CONSTRAINT `ranking_run_persons_id_pessoa` PRIMARY KEY(`id_pessoa`)
);
--> statement-breakpoint
ALTER TABLE `ranking_entries` ADD `impressao` varbinary(16);--> statement-breakpoint
ALTER TABLE `ranking_entries` ADD `chave_documento` varbinary(16);--> statement-breakpoint
ALTER TABLE `ranking_entries` ADD `verificada_em` varchar(10);--> statement-breakpoint
ALTER TABLE `ranking_entries` ADD `pagina_pendente` boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE `ranking_pages` ADD `data_referencia` varchar(10) DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `ranking_statistics` ADD `data_referencia` varchar(10);--> statement-breakpoint
CREATE INDEX `ranking_entries_pagina_pendente` ON `ranking_entries` (`pagina_pendente`);