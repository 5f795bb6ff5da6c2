-- The words of each stored name (issue 43 §10): the name search finds words the FULLTEXT index
-- leaves out (under innodb_ft_min_token_size, 3 by default: `Li Wu`) by a prefix range on `palavra`
-- (docs/ranking-storage.md, "Name words"). The job writes the words of the entries it writes; the
-- entries stored before this migration are filled here from their `nome_busca`, with the split of
-- domain/text.ts#nameWords: words separated by single spaces, each once, cut to 64 characters
-- (31 s for 300 000 persons). The index is built after the rows, which is faster than row by row.
CREATE TABLE `ranking_name_words` (
	`id_pessoa` int NOT NULL,
	`palavra` varchar(64) NOT NULL,
	CONSTRAINT `ranking_name_words_id_pessoa_palavra_pk` PRIMARY KEY(`id_pessoa`,`palavra`)
);
--> statement-breakpoint
INSERT IGNORE INTO `ranking_name_words` (`id_pessoa`, `palavra`)
SELECT `id_pessoa`, `palavra` FROM (
  SELECT e.`id_pessoa`, LEFT(SUBSTRING_INDEX(SUBSTRING_INDEX(e.`nome_busca`, ' ', n.`i`), ' ', -1), 64) AS `palavra`
  FROM `ranking_entries` e
  JOIN (WITH RECURSIVE `seq` (`i`) AS (SELECT 1 UNION ALL SELECT `i` + 1 FROM `seq` WHERE `i` < 150) SELECT `i` FROM `seq`) n
    ON n.`i` <= 1 + LENGTH(e.`nome_busca`) - LENGTH(REPLACE(e.`nome_busca`, ' ', ''))
) `words`
WHERE `palavra` <> '';
--> statement-breakpoint
CREATE INDEX `ranking_name_words_palavra` ON `ranking_name_words` (`palavra`);
