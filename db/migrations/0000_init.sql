CREATE TABLE `settings` (
	`name` varchar(64) NOT NULL,
	`value` longtext NOT NULL,
	`updated_at` timestamp NOT NULL DEFAULT (now()) ON UPDATE CURRENT_TIMESTAMP,
	CONSTRAINT `settings_name` PRIMARY KEY(`name`)
);
