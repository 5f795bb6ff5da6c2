ALTER TABLE `ranking_entry_details` ADD `complementos_prontos` longtext;--> statement-breakpoint
ALTER TABLE `ranking_entry_details` ADD `id_cv` text;