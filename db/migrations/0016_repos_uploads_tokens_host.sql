CREATE TABLE `uploads` (
	`id` varchar(36) NOT NULL,
	`batch_id` varchar(36) NOT NULL,
	`path` varchar(1000) NOT NULL,
	`original_name` varchar(255) NOT NULL,
	`size` int NOT NULL,
	`client_id` varchar(128),
	`created_at` datetime(3) NOT NULL,
	CONSTRAINT `uploads_id` PRIMARY KEY(`id`)
);
--> statement-breakpoint
ALTER TABLE `executions` ADD `repo_name` varchar(100);--> statement-breakpoint
ALTER TABLE `executions` ADD `repo_branch` varchar(255);--> statement-breakpoint
ALTER TABLE `executions` ADD `repo_commit` varchar(64);--> statement-breakpoint
ALTER TABLE `executions` ADD `context_files` longtext;--> statement-breakpoint
ALTER TABLE `executions` ADD `host` varchar(128);--> statement-breakpoint
ALTER TABLE `executions` ADD `input_tokens` int;--> statement-breakpoint
ALTER TABLE `executions` ADD `output_tokens` int;--> statement-breakpoint
ALTER TABLE `executions` ADD `cache_read_tokens` int;--> statement-breakpoint
ALTER TABLE `executions` ADD `cache_creation_tokens` int;--> statement-breakpoint
CREATE INDEX `uploads_created` ON `uploads` (`created_at`);--> statement-breakpoint
CREATE INDEX `uploads_batch` ON `uploads` (`batch_id`);