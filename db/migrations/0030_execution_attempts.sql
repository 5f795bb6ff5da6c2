-- The attempts of an agent record run more than once (retryOnFailure), with what each cost (docs/executions.md, "Attempts"): records stored before keep only their last attempt's cost, and their detail lists their earlier attempts without one.
CREATE TABLE `execution_attempts` (
	`execution_id` varchar(36) NOT NULL,
	`attempt` int NOT NULL,
	`status` varchar(24),
	`error` text,
	`cost_usd` double,
	`counted` boolean NOT NULL DEFAULT false,
	`started_at` datetime(3),
	`ended_at` datetime(3),
	CONSTRAINT `execution_attempts_execution_id_attempt_pk` PRIMARY KEY(`execution_id`,`attempt`)
);
--> statement-breakpoint
ALTER TABLE `execution_attempts` ADD CONSTRAINT `execution_attempts_execution_id_executions_id_fk` FOREIGN KEY (`execution_id`) REFERENCES `executions`(`id`) ON DELETE cascade ON UPDATE no action;