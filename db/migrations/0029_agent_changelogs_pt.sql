-- The versions modal of the panel reads pt-BR (issue 43 §1): the changelogs stored in English become the words
-- domain/agent-changelog.ts writes from now on. 'updated: ' is 9 characters, 'restored version ' 17, 'duplicated from ' 16.
UPDATE `agent_versions` SET `changelog` = CASE
  WHEN `changelog` = 'created' THEN 'Criado'
  WHEN `changelog` = 'imported' THEN 'Importado'
  WHEN `changelog` = 'updated' THEN 'Atualizado'
  WHEN `changelog` = 'updated (no changes)' THEN 'Atualizado (sem alterações)'
  WHEN `changelog` LIKE 'updated: %' THEN CONCAT('Atualizado: ', SUBSTRING(`changelog`, 10))
  WHEN `changelog` REGEXP '^restored version [0-9]+$' THEN CONCAT('Restaurado para versão ', SUBSTRING(`changelog`, 18))
  WHEN `changelog` LIKE 'duplicated from "%"' THEN CONCAT('Duplicado de ', SUBSTRING(`changelog`, 17))
  ELSE `changelog`
END
WHERE `changelog` IN ('created', 'imported', 'updated', 'updated (no changes)')
  OR `changelog` LIKE 'updated: %'
  OR `changelog` LIKE 'restored version %'
  OR `changelog` LIKE 'duplicated from "%';
