CREATE TABLE `pipelines` (
	`id` varchar(36) NOT NULL,
	`name` varchar(200) NOT NULL,
	`description` text NOT NULL,
	`working_directory` varchar(1000),
	`status` varchar(16) NOT NULL DEFAULT 'active',
	`steps` longtext NOT NULL,
	`created_at` datetime(3) NOT NULL,
	`updated_at` datetime(3) NOT NULL,
	CONSTRAINT `pipelines_id` PRIMARY KEY(`id`)
);
--> statement-breakpoint
CREATE TABLE `schedules` (
	`id` varchar(36) NOT NULL,
	`agent_id` varchar(36) NOT NULL,
	`task_id` varchar(36),
	`task_description` mediumtext NOT NULL,
	`cron_expression` varchar(100) NOT NULL,
	`active` boolean NOT NULL DEFAULT true,
	`created_at` datetime(3) NOT NULL,
	`updated_at` datetime(3) NOT NULL,
	CONSTRAINT `schedules_id` PRIMARY KEY(`id`)
);
--> statement-breakpoint
CREATE TABLE `tasks` (
	`id` varchar(36) NOT NULL,
	`name` varchar(200) NOT NULL,
	`category` varchar(32) NOT NULL DEFAULT '',
	`description` text NOT NULL,
	`created_at` datetime(3) NOT NULL,
	`updated_at` datetime(3) NOT NULL,
	CONSTRAINT `tasks_id` PRIMARY KEY(`id`)
);
--> statement-breakpoint
CREATE TABLE `webhook_deliveries` (
	`id` varchar(36) NOT NULL,
	`webhook_id` varchar(36) NOT NULL,
	`delivery_id` varchar(200),
	`caller` varchar(100) NOT NULL,
	`execution_id` varchar(36),
	`received_at` datetime(3) NOT NULL,
	CONSTRAINT `webhook_deliveries_id` PRIMARY KEY(`id`),
	CONSTRAINT `webhook_deliveries_once` UNIQUE(`webhook_id`,`delivery_id`)
);
--> statement-breakpoint
CREATE TABLE `webhooks` (
	`id` varchar(36) NOT NULL,
	`name` varchar(200) NOT NULL,
	`target_type` varchar(16) NOT NULL,
	`target_id` varchar(36) NOT NULL,
	`token` varchar(64) NOT NULL,
	`active` boolean NOT NULL DEFAULT true,
	`secret_ciphertext` mediumblob,
	`secret_iv` varbinary(16),
	`secret_auth_tag` varbinary(16),
	`last_triggered_at` datetime(3),
	`trigger_count` int NOT NULL DEFAULT 0,
	`created_at` datetime(3) NOT NULL,
	`updated_at` datetime(3) NOT NULL,
	CONSTRAINT `webhooks_id` PRIMARY KEY(`id`),
	CONSTRAINT `webhooks_token` UNIQUE(`token`)
);
--> statement-breakpoint
ALTER TABLE `executions` ADD `pipeline_execution_id` varchar(36);--> statement-breakpoint
ALTER TABLE `executions` ADD `step_index` int;--> statement-breakpoint
ALTER TABLE `executions` ADD `failed_at_step` int;--> statement-breakpoint
ALTER TABLE `executions` ADD `last_step_input` mediumtext;--> statement-breakpoint
ALTER TABLE `executions` ADD `resumed_from` varchar(36);--> statement-breakpoint
ALTER TABLE `executions` ADD `resumed_at_step` int;--> statement-breakpoint
ALTER TABLE `executions` ADD `webhook_id` varchar(36);--> statement-breakpoint
ALTER TABLE `webhook_deliveries` ADD CONSTRAINT `webhook_deliveries_webhook_id_webhooks_id_fk` FOREIGN KEY (`webhook_id`) REFERENCES `webhooks`(`id`) ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX `pipelines_created` ON `pipelines` (`created_at`);--> statement-breakpoint
CREATE INDEX `schedules_agent` ON `schedules` (`agent_id`);--> statement-breakpoint
CREATE INDEX `tasks_created` ON `tasks` (`created_at`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_received` ON `webhook_deliveries` (`webhook_id`,`received_at`);--> statement-breakpoint
CREATE INDEX `executions_schedule_created` ON `executions` (`schedule_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `executions_pipeline_run_step` ON `executions` (`pipeline_execution_id`,`step_index`);