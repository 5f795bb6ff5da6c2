ALTER TABLE `ranking_entry_details` ADD `complementos` longtext DEFAULT '{}' NOT NULL;
--> statement-breakpoint
-- Hand-added: existing details take the form pages splice unparsed (every field present, null when
-- absent, in response order). Their languages, degrees and cv were never stored: '{}' keeps rules 3
-- and 4 filling them from the index, as before.
UPDATE `ranking_entry_details` SET `detalhes` = JSON_OBJECT(
  'consultoria', JSON_EXTRACT(`detalhes`, '$.consultoria'),
  'coordenacoes_agency', JSON_EXTRACT(`detalhes`, '$.coordenacoes_agency'),
  'inscricoes', JSON_EXTRACT(`detalhes`, '$.inscricoes'),
  'avaliacoes_comissao', JSON_EXTRACT(`detalhes`, '$.avaliacoes_comissao'),
  'premiacoes', JSON_EXTRACT(`detalhes`, '$.premiacoes'),
  'bolsas_funder', JSON_EXTRACT(`detalhes`, '$.bolsas_funder'),
  'participacoes', JSON_EXTRACT(`detalhes`, '$.participacoes'),
  'orientacoes', JSON_EXTRACT(`detalhes`, '$.orientacoes'),
  'membros_banca', JSON_EXTRACT(`detalhes`, '$.membros_banca'),
  'docencias', JSON_EXTRACT(`detalhes`, '$.docencias'),
  'pontuacao', JSON_EXTRACT(`detalhes`, '$.pontuacao')
);
