-- The name search (/ranking/busca) matches word prefixes of the accent-free, lower-case name.
-- drizzle's schema cannot express a FULLTEXT index, hence this hand-written migration.
CREATE FULLTEXT INDEX `ranking_entries_nome_busca_ft` ON `ranking_entries` (`nome_busca`);
--> statement-breakpoint
-- GET /ranking?componente=x lists entries scoring in block x, best in it first, ties by position.
CREATE INDEX `ranking_entries_bloco_a_rank` ON `ranking_entries` (`bloco_a` DESC, `posicao`);
--> statement-breakpoint
CREATE INDEX `ranking_entries_bloco_c_rank` ON `ranking_entries` (`bloco_c` DESC, `posicao`);
--> statement-breakpoint
CREATE INDEX `ranking_entries_bloco_d_rank` ON `ranking_entries` (`bloco_d` DESC, `posicao`);
