CREATE TABLE `ranking_entries` (
	`id_pessoa` int NOT NULL,
	`nome` varchar(300) NOT NULL,
	`nome_busca` varchar(300) NOT NULL,
	`posicao` int,
	`pontuacao_total` double NOT NULL,
	`bloco_a` double NOT NULL,
	`bloco_b` double NOT NULL,
	`bloco_c` double NOT NULL,
	`bloco_d` double NOT NULL,
	`bloco_e` double NOT NULL,
	`ativo` boolean NOT NULL,
	`anos_atuacao` double NOT NULL,
	`coordenador_ppg` boolean NOT NULL DEFAULT false,
	`tipos_atuacao` longtext NOT NULL,
	`selos` longtext NOT NULL,
	`detalhes` longtext NOT NULL,
	`run_id` varchar(64) NOT NULL,
	CONSTRAINT `ranking_entries_id_pessoa` PRIMARY KEY(`id_pessoa`)
);
--> statement-breakpoint
CREATE TABLE `ranking_entry_seals` (
	`selo` varchar(40) NOT NULL,
	`id_pessoa` int NOT NULL,
	CONSTRAINT `ranking_entry_seals_selo_id_pessoa_pk` PRIMARY KEY(`selo`,`id_pessoa`)
);
--> statement-breakpoint
CREATE TABLE `ranking_job_runs` (
	`run_id` varchar(64) NOT NULL,
	`origem` varchar(16) NOT NULL,
	`limpar_antes` boolean NOT NULL,
	`estado` varchar(16) NOT NULL,
	`fase` varchar(16) NOT NULL,
	`processados` int NOT NULL DEFAULT 0,
	`total` int NOT NULL DEFAULT 0,
	`iniciado_em` datetime(3) NOT NULL,
	`finalizado_em` datetime(3),
	`ultimo_erro` text,
	CONSTRAINT `ranking_job_runs_run_id` PRIMARY KEY(`run_id`)
);
--> statement-breakpoint
CREATE TABLE `ranking_statistics` (
	`id` tinyint NOT NULL,
	`run_id` varchar(64) NOT NULL,
	`calculado_em` datetime(3) NOT NULL,
	`dados` longtext NOT NULL,
	CONSTRAINT `ranking_statistics_id` PRIMARY KEY(`id`)
);
--> statement-breakpoint
CREATE INDEX `ranking_entries_posicao` ON `ranking_entries` (`posicao`);--> statement-breakpoint
CREATE INDEX `ranking_entries_ativo_posicao` ON `ranking_entries` (`ativo`,`posicao`);--> statement-breakpoint
CREATE INDEX `ranking_entries_run` ON `ranking_entries` (`run_id`);--> statement-breakpoint
CREATE INDEX `ranking_entries_nome` ON `ranking_entries` (`nome`);--> statement-breakpoint
CREATE INDEX `ranking_entries_total` ON `ranking_entries` (`pontuacao_total`);--> statement-breakpoint
CREATE INDEX `ranking_entry_seals_pessoa` ON `ranking_entry_seals` (`id_pessoa`);--> statement-breakpoint
CREATE INDEX `ranking_job_runs_started` ON `ranking_job_runs` (`iniciado_em`);--> statement-breakpoint
CREATE INDEX `ranking_job_runs_state` ON `ranking_job_runs` (`estado`,`finalizado_em`);