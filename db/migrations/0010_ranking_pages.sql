CREATE TABLE `ranking_pages` (
	`pagina` int NOT NULL,
	`run_id` varchar(64) NOT NULL,
	`cv_base` text NOT NULL,
	`corpo` longblob NOT NULL,
	`incompletos` longtext NOT NULL,
	CONSTRAINT `ranking_pages_pagina` PRIMARY KEY(`pagina`)
);
