-- Moving an entry changes only its position: the filtered lists' indexes order by the ranking's
-- order itself (total, blocks A-E descending, id ascending: what positions number), not by
-- posicao, so a run that moves most entries updates one index per row instead of five
-- (docs/ranking-storage.md). Nothing reads entries by run_id. The ordered indexes are hand-written:
-- drizzle cannot express descending columns.
DROP INDEX `ranking_entries_ativo_posicao` ON `ranking_entries`;--> statement-breakpoint
DROP INDEX `ranking_entries_run` ON `ranking_entries`;--> statement-breakpoint
DROP INDEX `ranking_entries_bloco_a_rank` ON `ranking_entries`;--> statement-breakpoint
DROP INDEX `ranking_entries_bloco_c_rank` ON `ranking_entries`;--> statement-breakpoint
DROP INDEX `ranking_entries_bloco_d_rank` ON `ranking_entries`;--> statement-breakpoint
CREATE INDEX `ranking_entries_ativo_ordem` ON `ranking_entries`
  (`ativo`, `pontuacao_total` DESC, `bloco_a` DESC, `bloco_b` DESC, `bloco_c` DESC, `bloco_d` DESC, `bloco_e` DESC, `id_pessoa`);--> statement-breakpoint
CREATE INDEX `ranking_entries_bloco_a_ordem` ON `ranking_entries`
  (`bloco_a` DESC, `pontuacao_total` DESC, `bloco_b` DESC, `bloco_c` DESC, `bloco_d` DESC, `bloco_e` DESC, `id_pessoa`);--> statement-breakpoint
CREATE INDEX `ranking_entries_bloco_c_ordem` ON `ranking_entries`
  (`bloco_c` DESC, `pontuacao_total` DESC, `bloco_a` DESC, `bloco_b` DESC, `bloco_d` DESC, `bloco_e` DESC, `id_pessoa`);--> statement-breakpoint
CREATE INDEX `ranking_entries_bloco_d_ordem` ON `ranking_entries`
  (`bloco_d` DESC, `pontuacao_total` DESC, `bloco_a` DESC, `bloco_b` DESC, `bloco_c` DESC, `bloco_e` DESC, `id_pessoa`);
