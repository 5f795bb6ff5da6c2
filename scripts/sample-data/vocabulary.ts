/**
 * Word lists of the sample data: Portuguese names with accents (they are what the encoding damage and
 * the accent-insensitive comparisons of the service are about), institutions with duplicate spellings,
 * assessment areas in the agency's style with their knowledge areas and research topics.
 */

export const FIRST_NAMES: readonly string[] = [
  'João',
  'José',
  'Maria',
  'Ana',
  'Conceição',
  'Ângela',
  'Lúcia',
  'Inês',
  'Sebastião',
  'Antônio',
  'Márcio',
  'Fábio',
  'Luís',
  'Vinícius',
  'Júlia',
  'Letícia',
  'Patrícia',
  'Mônica',
  'Cláudia',
  'Sérgio',
  'Flávia',
  'Rogério',
  'Débora',
  'Célia',
  'Nádia',
  'Bárbara',
  'Otávio',
  'César',
  'Heloísa',
  'Lígia',
  'Valéria',
  'Vitória',
  'Glória',
  'Rosângela',
  'Andréia',
  'Tânia',
  'Vânia',
  'Simão',
  'Estêvão',
  'Aurélio',
  'Thaís',
  'Luíza',
  'Mírian',
  'Cássio',
  'Gláucia',
  'Jéssica',
  'Natália',
  'Amália',
  'Iracema',
  'Raí',
  'Pedro',
  'Paulo',
  'Carlos',
  'Fernanda',
  'Juliana',
  'Ricardo',
  'Marcelo',
  'Rafael',
  'Gustavo',
  'Beatriz',
  'Camila',
  'Helena',
  'Renata',
  'Eduardo',
  'Roberto',
  'Francisco',
  'Luciana',
  'Adriana',
  'Sandra',
  'Marcos',
  'Daniel',
  'Gabriel',
  'Mariana',
  'Carolina',
  'Rodrigo',
  'Alexandre',
  'Cristina',
  'Silvia',
  'Tiago',
  'Bruno',
];

export const SURNAMES: readonly string[] = [
  'Gonçalves',
  'Araújo',
  'Conceição',
  'Magalhães',
  'Simões',
  'Guimarães',
  'Damião',
  'Brandão',
  'Falcão',
  'Assunção',
  'Sá',
  'Galvão',
  'Leão',
  'Romão',
  'Müller',
  'Estevão',
  'Gusmão',
  'Patrício',
  'Antônio',
  'Lúcio',
  'Silva',
  'Santos',
  'Oliveira',
  'Souza',
  'Pereira',
  'Lima',
  'Ferreira',
  'Costa',
  'Rodrigues',
  'Almeida',
  'Nascimento',
  'Carvalho',
  'Gomes',
  'Martins',
  'Rocha',
  'Ribeiro',
  'Alves',
  'Monteiro',
  'Mendes',
  'Barros',
  'Freitas',
  'Barbosa',
  'Pinto',
  'Moura',
  'Cavalcanti',
  'Dias',
  'Castro',
  'Campos',
  'Cardoso',
  'Teixeira',
  'Vieira',
  'Nogueira',
  'Fonseca',
  'Machado',
  'Azevedo',
  'Correia',
  'Moreira',
  'Lopes',
  'Queiroz',
  'Bezerra',
];

export const NAME_PARTICLES: readonly string[] = ['da', 'de', 'dos', 'das', 'do'];

export interface InstitutionSpelling {
  nome: string;
  sigla: string | null;
}

/** An institution; `variants` are other spellings of the same one found in the source (duplicates). */
export interface Institution extends InstitutionSpelling {
  sigla: string;
  cidade: string;
  codigo: string;
  variants: readonly InstitutionSpelling[];
}

export const INSTITUTIONS: readonly Institution[] = [
  {
    nome: 'Universidade de São Paulo',
    sigla: 'USP',
    cidade: 'São Paulo',
    codigo: '33002010',
    variants: [
      { nome: 'UNIVERSIDADE DE SÃO PAULO', sigla: 'USP' },
      { nome: 'Universidade de São Paulo', sigla: null },
    ],
  },
  {
    nome: 'Universidade Estadual de Campinas',
    sigla: 'UNICAMP',
    cidade: 'Campinas',
    codigo: '33003017',
    variants: [{ nome: 'Universidade Estadual de Campinas', sigla: 'Unicamp' }],
  },
  {
    nome: 'Universidade Federal do Rio de Janeiro',
    sigla: 'UFRJ',
    cidade: 'Rio de Janeiro',
    codigo: '31001017',
    variants: [{ nome: 'Univ. Federal do Rio de Janeiro', sigla: 'UFRJ' }],
  },
  {
    nome: 'Universidade Federal de Minas Gerais',
    sigla: 'UFMG',
    cidade: 'Belo Horizonte',
    codigo: '32001010',
    variants: [{ nome: 'Universidade Federal de Minas Gerais', sigla: null }],
  },
  { nome: 'Universidade Federal do Rio Grande do Sul', sigla: 'UFRGS', cidade: 'Porto Alegre', codigo: '42001013', variants: [] },
  {
    nome: 'Universidade de Brasília',
    sigla: 'UnB',
    cidade: 'Brasília',
    codigo: '53001010',
    variants: [
      { nome: 'Universidade de Brasilia', sigla: 'UNB' },
      { nome: 'Fundação Universidade de Brasília', sigla: 'FUB' },
    ],
  },
  { nome: 'Universidade Federal de Pernambuco', sigla: 'UFPE', cidade: 'Recife', codigo: '25001019', variants: [] },
  { nome: 'Universidade Federal da Bahia', sigla: 'UFBA', cidade: 'Salvador', codigo: '28001010', variants: [] },
  {
    nome: 'Universidade Federal do Ceará',
    sigla: 'UFC',
    cidade: 'Fortaleza',
    codigo: '22001018',
    variants: [{ nome: 'Universidade Federal do Ceara', sigla: 'UFC' }],
  },
  { nome: 'Universidade Federal do Pará', sigla: 'UFPA', cidade: 'Belém', codigo: '15001016', variants: [] },
  { nome: 'Universidade Federal do Amazonas', sigla: 'UFAM', cidade: 'Manaus', codigo: '12001015', variants: [] },
  {
    nome: 'Universidade Federal de Santa Catarina',
    sigla: 'UFSC',
    cidade: 'Florianópolis',
    codigo: '41001010',
    variants: [{ nome: 'UNIVERSIDADE FEDERAL DE SANTA CATARINA', sigla: 'UFSC' }],
  },
  { nome: 'Universidade Federal do Paraná', sigla: 'UFPR', cidade: 'Curitiba', codigo: '40001016', variants: [] },
  {
    nome: 'Universidade Estadual Paulista Júlio de Mesquita Filho',
    sigla: 'UNESP',
    cidade: 'São Paulo',
    codigo: '33004013',
    variants: [{ nome: 'Universidade Estadual Paulista', sigla: 'UNESP' }],
  },
  { nome: 'Universidade Federal de Viçosa', sigla: 'UFV', cidade: 'Viçosa', codigo: '32002017', variants: [] },
  {
    nome: 'Universidade Federal de São Carlos',
    sigla: 'UFSCar',
    cidade: 'São Carlos',
    codigo: '33001014',
    variants: [{ nome: 'Universidade Federal de São Carlos', sigla: 'UFSCAR' }],
  },
  {
    nome: 'Pontifícia Universidade Católica do Rio de Janeiro',
    sigla: 'PUC-Rio',
    cidade: 'Rio de Janeiro',
    codigo: '31005012',
    variants: [{ nome: 'Pontifícia Universidade Católica do Rio de Janeiro', sigla: 'PUC-RIO' }],
  },
  { nome: 'Universidade Federal Fluminense', sigla: 'UFF', cidade: 'Niterói', codigo: '31003010', variants: [] },
  { nome: 'Universidade Federal de Goiás', sigla: 'UFG', cidade: 'Goiânia', codigo: '52001016', variants: [] },
  {
    nome: 'Universidade Federal da Paraíba',
    sigla: 'UFPB',
    cidade: 'João Pessoa',
    codigo: '24001015',
    variants: [{ nome: 'Universidade Federal da Paraíba - João Pessoa', sigla: 'UFPB-JP' }],
  },
  { nome: 'Universidade Federal do Rio Grande do Norte', sigla: 'UFRN', cidade: 'Natal', codigo: '23001011', variants: [] },
  { nome: 'Universidade Federal de Santa Maria', sigla: 'UFSM', cidade: 'Santa Maria', codigo: '42002010', variants: [] },
  { nome: 'Universidade Estadual de Londrina', sigla: 'UEL', cidade: 'Londrina', codigo: '40002012', variants: [] },
  { nome: 'Universidade Federal de Uberlândia', sigla: 'UFU', cidade: 'Uberlândia', codigo: '32006012', variants: [] },
  {
    nome: 'Fundação Oswaldo Cruz',
    sigla: 'FIOCRUZ',
    cidade: 'Rio de Janeiro',
    codigo: '31010016',
    variants: [{ nome: 'Fundação Oswaldo Cruz', sigla: 'Fiocruz' }],
  },
  { nome: 'Universidade Federal do Maranhão', sigla: 'UFMA', cidade: 'São Luís', codigo: '21001014', variants: [] },
];

export type Collegium = 'Ciências da Vida' | 'Humanidades' | 'Ciências Exatas, Tecnológicas e Multidisciplinar';

export interface AssessmentArea {
  nome: string;
  colegio: Collegium;
  /** Relative number of persons in the area. */
  weight: number;
  knowledgeAreas: readonly string[];
  /** Research topics, in lower case, to build research lines, titles and project names. */
  topics: readonly string[];
}

const LIFE: Collegium = 'Ciências da Vida';
const HUMANITIES: Collegium = 'Humanidades';
const EXACT: Collegium = 'Ciências Exatas, Tecnológicas e Multidisciplinar';

export const ASSESSMENT_AREAS: readonly AssessmentArea[] = [
  {
    nome: 'Ciência da Computação',
    colegio: EXACT,
    weight: 5,
    knowledgeAreas: ['Ciência da Computação', 'Sistemas de Computação', 'Metodologia e Técnicas da Computação', 'Teoria da Computação'],
    topics: [
      'aprendizado de máquina',
      'computação distribuída',
      'engenharia de software',
      'visão computacional',
      'processamento de linguagem natural',
    ],
  },
  {
    nome: 'Engenharias III',
    colegio: EXACT,
    weight: 4,
    knowledgeAreas: ['Engenharia Mecânica', 'Engenharia de Produção', 'Engenharia Aeroespacial', 'Engenharia Naval e Oceânica'],
    topics: ['dinâmica dos fluidos computacional', 'otimização de processos produtivos', 'vibrações mecânicas', 'manufatura aditiva'],
  },
  {
    nome: 'Engenharias IV',
    colegio: EXACT,
    weight: 3,
    knowledgeAreas: ['Engenharia Elétrica', 'Engenharia Biomédica', 'Telecomunicações'],
    topics: ['sistemas de potência', 'eletrônica de potência', 'processamento digital de sinais', 'redes sem fio'],
  },
  {
    nome: 'Saúde Coletiva',
    colegio: LIFE,
    weight: 5,
    knowledgeAreas: ['Saúde Coletiva', 'Epidemiologia', 'Saúde Pública', 'Medicina Preventiva'],
    topics: ['vigilância epidemiológica', 'atenção primária à saúde', 'políticas públicas de saúde', 'doenças crônicas não transmissíveis'],
  },
  {
    nome: 'Educação',
    colegio: HUMANITIES,
    weight: 8,
    knowledgeAreas: ['Educação', 'Fundamentos da Educação', 'Ensino-Aprendizagem', 'Política Educacional', 'Currículo'],
    topics: [
      'formação de professores',
      'educação inclusiva',
      'políticas educacionais',
      'educação de jovens e adultos',
      'tecnologias na educação',
    ],
  },
  {
    nome: 'Química',
    colegio: EXACT,
    weight: 4,
    knowledgeAreas: ['Química', 'Química Orgânica', 'Química Inorgânica', 'Físico-Química', 'Química Analítica'],
    topics: ['síntese orgânica', 'catálise heterogênea', 'eletroquímica', 'química de produtos naturais'],
  },
  {
    nome: 'Matemática / Probabilidade e Estatística',
    colegio: EXACT,
    weight: 3,
    knowledgeAreas: ['Matemática', 'Probabilidade e Estatística', 'Matemática Aplicada', 'Análise', 'Geometria e Topologia'],
    topics: ['equações diferenciais parciais', 'inferência bayesiana', 'sistemas dinâmicos', 'processos estocásticos'],
  },
  {
    nome: 'Ciências Biológicas II',
    colegio: LIFE,
    weight: 4,
    knowledgeAreas: ['Fisiologia', 'Farmacologia', 'Bioquímica', 'Biofísica', 'Morfologia'],
    topics: ['fisiologia cardiovascular', 'farmacologia de produtos naturais', 'sinalização celular', 'neurociências'],
  },
  {
    nome: 'Direito',
    colegio: HUMANITIES,
    weight: 4,
    knowledgeAreas: ['Direito', 'Direito Público', 'Direito Privado', 'Teoria do Direito'],
    topics: ['direitos fundamentais', 'direito constitucional', 'direito ambiental', 'acesso à justiça'],
  },
  {
    nome: 'Economia',
    colegio: HUMANITIES,
    weight: 3,
    knowledgeAreas: ['Economia', 'Teoria Econômica', 'Economia Regional e Urbana', 'Métodos Quantitativos em Economia'],
    topics: ['desenvolvimento econômico', 'economia do trabalho', 'política monetária', 'economia regional'],
  },
  {
    nome: 'Letras / Linguística',
    colegio: HUMANITIES,
    weight: 5,
    knowledgeAreas: ['Letras', 'Linguística', 'Literatura Brasileira', 'Teoria Literária', 'Línguas Estrangeiras Modernas'],
    topics: ['análise do discurso', 'literatura brasileira contemporânea', 'aquisição da linguagem', 'sociolinguística'],
  },
  {
    nome: 'Medicina I',
    colegio: LIFE,
    weight: 5,
    knowledgeAreas: ['Medicina', 'Clínica Médica', 'Cardiologia', 'Endocrinologia', 'Nefrologia'],
    topics: ['doenças cardiovasculares', 'diabetes mellitus', 'doença renal crônica', 'medicina baseada em evidências'],
  },
  {
    nome: 'Odontologia',
    colegio: LIFE,
    weight: 3,
    knowledgeAreas: ['Odontologia', 'Clínica Odontológica', 'Periodontia', 'Ortodontia'],
    topics: ['materiais odontológicos', 'saúde bucal coletiva', 'doença periodontal', 'reabilitação oral'],
  },
  {
    nome: 'Astronomia / Física',
    colegio: EXACT,
    weight: 3,
    knowledgeAreas: ['Física', 'Astronomia', 'Física da Matéria Condensada', 'Física de Partículas e Campos'],
    topics: ['matéria condensada', 'cosmologia observacional', 'óptica quântica', 'física de altas energias'],
  },
  {
    nome: 'Geociências',
    colegio: EXACT,
    weight: 2,
    knowledgeAreas: ['Geociências', 'Geologia', 'Geofísica', 'Oceanografia Física'],
    topics: ['geologia estrutural', 'hidrogeologia', 'sensoriamento remoto', 'mudanças climáticas'],
  },
  {
    nome: 'Zootecnia / Recursos Pesqueiros',
    colegio: LIFE,
    weight: 3,
    knowledgeAreas: ['Zootecnia', 'Recursos Pesqueiros e Engenharia de Pesca', 'Nutrição e Alimentação Animal', 'Produção Animal'],
    topics: ['nutrição de ruminantes', 'aquicultura', 'melhoramento genético animal', 'bem-estar animal'],
  },
  {
    nome: 'Planejamento Urbano e Regional / Demografia',
    colegio: HUMANITIES,
    weight: 2,
    knowledgeAreas: ['Planejamento Urbano e Regional', 'Demografia', 'Fundamentos do Planejamento Urbano e Regional'],
    topics: ['mobilidade urbana', 'dinâmica populacional', 'desenvolvimento regional', 'habitação social'],
  },
  {
    nome: 'Ciências Agrárias I',
    colegio: LIFE,
    weight: 6,
    knowledgeAreas: ['Agronomia', 'Ciência do Solo', 'Fitotecnia', 'Fitossanidade', 'Recursos Florestais e Engenharia Florestal'],
    topics: ['manejo do solo', 'controle biológico de pragas', 'melhoramento de plantas', 'agricultura de precisão'],
  },
  {
    nome: 'Biodiversidade',
    colegio: LIFE,
    weight: 4,
    knowledgeAreas: ['Ecologia', 'Botânica', 'Zoologia', 'Oceanografia Biológica'],
    topics: ['ecologia de populações', 'conservação da biodiversidade', 'taxonomia vegetal', 'ecologia da Amazônia'],
  },
  {
    nome: 'Ensino',
    colegio: EXACT,
    weight: 4,
    knowledgeAreas: ['Ensino de Ciências e Matemática', 'Ensino', 'Educação em Saúde'],
    topics: ['ensino de ciências', 'ensino de matemática', 'divulgação científica', 'educação em saúde'],
  },
  {
    nome: 'Interdisciplinar',
    colegio: EXACT,
    weight: 7,
    knowledgeAreas: ['Multidisciplinar', 'Sociais e Humanidades', 'Meio Ambiente e Agrárias', 'Engenharia, Tecnologia e Gestão'],
    topics: ['desenvolvimento sustentável', 'gestão da inovação', 'estudos socioambientais', 'sociedade e tecnologia'],
  },
  {
    nome: 'Enfermagem',
    colegio: LIFE,
    weight: 3,
    knowledgeAreas: ['Enfermagem', 'Enfermagem de Saúde Pública', 'Enfermagem Médico-Cirúrgica'],
    topics: ['cuidado de enfermagem', 'saúde da mulher', 'segurança do paciente', 'gestão em saúde'],
  },
  {
    nome: 'Psicologia',
    colegio: HUMANITIES,
    weight: 3,
    knowledgeAreas: ['Psicologia', 'Psicologia Social', 'Psicologia do Desenvolvimento Humano', 'Psicologia Cognitiva'],
    topics: ['desenvolvimento infantil', 'saúde mental', 'psicologia social', 'avaliação psicológica'],
  },
  {
    nome: 'História',
    colegio: HUMANITIES,
    weight: 3,
    knowledgeAreas: ['História', 'História do Brasil', 'História Moderna e Contemporânea', 'Teoria e Filosofia da História'],
    topics: ['história do Brasil republicano', 'história social do trabalho', 'história indígena', 'memória e patrimônio'],
  },
  {
    nome: 'Administração Pública e de Empresas, Ciências Contábeis e Turismo',
    colegio: HUMANITIES,
    weight: 4,
    knowledgeAreas: ['Administração', 'Administração Pública', 'Ciências Contábeis', 'Turismo'],
    topics: ['gestão pública', 'estratégia organizacional', 'finanças corporativas', 'turismo sustentável'],
  },
  {
    nome: 'Medicina Veterinária',
    colegio: LIFE,
    weight: 3,
    knowledgeAreas: ['Medicina Veterinária', 'Clínica e Cirurgia Animal', 'Medicina Veterinária Preventiva'],
    topics: ['sanidade animal', 'zoonoses', 'reprodução animal', 'clínica de pequenos animais'],
  },
  {
    nome: 'Ciência de Alimentos',
    colegio: LIFE,
    weight: 2,
    knowledgeAreas: ['Ciência e Tecnologia de Alimentos', 'Ciência de Alimentos', 'Engenharia de Alimentos'],
    topics: ['compostos bioativos', 'microbiologia de alimentos', 'tecnologia de bebidas', 'segurança alimentar'],
  },
];

/** Starts of research-line names; the line is "<prefix> <topic>[ <suffix>]". */
export const RESEARCH_LINE_PREFIXES: readonly string[] = [
  'Estudos sobre',
  'Métodos de',
  'Análise de',
  'Modelagem de',
  'Avaliação de',
  'Fundamentos de',
  'Aplicações de',
  'Políticas de',
  'Tecnologias para',
  'Abordagens integradas em',
];

export const RESEARCH_LINE_SUFFIXES: readonly string[] = [
  'no Brasil',
  'em contextos regionais',
  'na Amazônia',
  'no Nordeste brasileiro',
  'e sustentabilidade',
  'e inovação',
  'em populações vulneráveis',
  'na América Latina',
];

export const WORK_TITLE_PREFIXES: readonly string[] = [
  'Um estudo sobre',
  'Contribuições para',
  'Efeitos de',
  'Uma abordagem para',
  'Desafios de',
  'Perspectivas em',
  'Avaliação de',
];

export const AWARD_NAMES = {
  /** Area award: `${prize} – ${area}`. */
  areaPrize: 'Prêmio de Tese',
  /** Grand prize per collegium: `${grandPrize} ${collegium}`. */
  grandPrize: 'Grande Prêmio de Tese',
  other: ['Prêmio Jovem Pesquisador', 'Prêmio Destaque em Inovação', 'Prêmio Mulheres na Ciência', 'Prêmio de Excelência Acadêmica'],
} as const;

export const AWARD_EVENTS: readonly string[] = [
  'Cerimônia de Premiação Anual',
  'Seminário Nacional de Pós-Graduação',
  'Encontro Nacional de Pesquisa',
];

/** Research-grant modalities (PQ = research productivity, DT = technological development). */
export const GRANT_MODALITIES: ReadonlyArray<readonly [string, number]> = [
  ['PQ-2', 45],
  ['PQ-1D', 14],
  ['PQ-1C', 11],
  ['PQ-1B', 8],
  ['PQ-1A', 6],
  ['DT-2', 10],
  ['DT-1', 6],
];

export const PARTICIPATION_TYPES: readonly string[] = [
  'Reunião de Avaliação Quadrienal',
  'Comissão de Avaliação de Propostas de Cursos Novos',
  'Seminário de Meio-Termo',
  'Comitê Técnico-Científico',
  'Visita de Avaliação in loco',
  'Consultoria ad hoc de Programas',
];

/** Degrees with their `hierarquia` in the source convention: a lower number is a higher degree. */
export const DEGREES = {
  posDoutorado: { grau: 'Pós-Doutorado', hierarquia: '1' },
  doutorado: { grau: 'Doutorado', hierarquia: '2' },
  mestrado: { grau: 'Mestrado', hierarquia: '3' },
  mestradoProfissional: { grau: 'Mestrado Profissional', hierarquia: '3' },
  graduacao: { grau: 'Graduação', hierarquia: '4' },
} as const;

export const LANGUAGES: readonly string[] = ['Inglês', 'Espanhol', 'Francês', 'Alemão', 'Italiano'];
export const PROFICIENCIES: readonly string[] = ['Bem', 'Razoavelmente', 'Pouco'];

export const FOREIGN_COUNTRIES: readonly string[] = [
  'Portugal',
  'França',
  'Estados Unidos',
  'Espanha',
  'Alemanha',
  'Reino Unido',
  'Canadá',
];
export const FOREIGN_NATIONALITIES: readonly string[] = ['Portuguesa', 'Argentina', 'Francesa', 'Colombiana', 'Italiana'];

export const STREET_NAMES: readonly string[] = [
  'Rua Barão de Jeremoabo',
  'Avenida Paulista',
  'Rua São Francisco Xavier',
  'Avenida Antônio Carlos',
  'Rua Conceição do Mato Dentro',
  'Avenida Bento Gonçalves',
  'Rua Dom Manoel de Medeiros',
  'Avenida João Naves de Ávila',
  'Rua Marquês de São Vicente',
  'Avenida Professor Luís Freire',
  'Rua Coronel Vicente',
  'Travessa Inácio Brandão',
];

export const NEIGHBOURHOODS: readonly string[] = [
  'Centro',
  'Cidade Universitária',
  'Ondina',
  'Pampulha',
  'Gávea',
  'Trindade',
  'Butantã',
  'Jardim Botânico',
  'Boa Viagem',
];

export const TEACHING = {
  categories: ['Permanente', 'Colaborador', 'Visitante'],
  bonds: ['Servidor Público', 'CLT', 'Bolsa de Fixação', 'Aposentado'],
  regimes: ['Dedicação Exclusiva', 'Integral', 'Parcial'],
  programmeSituations: ['Em funcionamento', 'Em funcionamento', 'Em funcionamento', 'Desativado'],
} as const;

export const EMPLOYMENT = {
  kinds: ['Servidor Público', 'Celetista', 'Professor Visitante'],
  activities: ['Docente', 'Pesquisador', 'Gestor'],
  bonds: ['Efetivo', 'Temporário', 'Colaborador'],
  professions: ['Professor Titular', 'Professor Associado', 'Professor Adjunto', 'Pesquisador', 'Professor Assistente'],
} as const;

export const PROJECT_SITUATIONS: readonly string[] = ['Em andamento', 'Concluído', 'Desativado'];
