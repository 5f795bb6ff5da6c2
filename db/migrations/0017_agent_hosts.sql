CREATE TABLE `agent_hosts` (
	`name` varchar(128) NOT NULL,
	`roots` longtext NOT NULL,
	`started_at` datetime(3) NOT NULL,
	`seen_at` datetime(3) NOT NULL,
	CONSTRAINT `agent_hosts_name` PRIMARY KEY(`name`)
);
