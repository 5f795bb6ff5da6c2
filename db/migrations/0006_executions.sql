CREATE TABLE `executions` (
	`id` varchar(36) NOT NULL,
	`kind` varchar(16) NOT NULL,
	`agent_id` varchar(36),
	`agent_name` varchar(100) NOT NULL,
	`pipeline_id` varchar(36),
	`status` varchar(16) NOT NULL,
	`source` varchar(16) NOT NULL,
	`schedule_id` varchar(36),
	`client_id` varchar(128),
	`task` mediumtext NOT NULL,
	`instructions` mediumtext NOT NULL,
	`working_directory` varchar(1000) NOT NULL,
	`model` varchar(100) NOT NULL,
	`session_id` varchar(128),
	`parent_execution_id` varchar(36),
	`cost_usd` double,
	`duration_ms` int,
	`turns` int,
	`output` mediumtext NOT NULL DEFAULT '',
	`output_truncated` boolean NOT NULL DEFAULT false,
	`error` text,
	`report_file` varchar(255),
	`created_at` datetime(3) NOT NULL,
	`started_at` datetime(3),
	`finished_at` datetime(3),
	CONSTRAINT `executions_id` PRIMARY KEY(`id`)
);
--> statement-breakpoint
CREATE TABLE `notifications` (
	`id` varchar(36) NOT NULL,
	`kind` varchar(32) NOT NULL,
	`title` varchar(200) NOT NULL,
	`message` text NOT NULL,
	`execution_id` varchar(36),
	`read` boolean NOT NULL DEFAULT false,
	`created_at` datetime(3) NOT NULL,
	CONSTRAINT `notifications_id` PRIMARY KEY(`id`)
);
--> statement-breakpoint
CREATE INDEX `executions_created` ON `executions` (`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `executions_status_created` ON `executions` (`status`,`created_at`);--> statement-breakpoint
CREATE INDEX `executions_agent_created` ON `executions` (`agent_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `executions_pipeline_created` ON `executions` (`pipeline_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `executions_source_created` ON `executions` (`source`,`created_at`);--> statement-breakpoint
CREATE INDEX `notifications_created` ON `notifications` (`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `notifications_read` ON `notifications` (`read`);