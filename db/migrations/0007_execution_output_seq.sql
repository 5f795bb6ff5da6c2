ALTER TABLE `executions` ADD `output_seq` int DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `executions` ADD `waiting_heartbeat_at` datetime(3);