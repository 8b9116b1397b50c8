/**
 * Names and questions about unrelated things, in several languages and scripts, for calibrating
 * similarity thresholds. Each is paired with the KB's own names or sentences: a pair of the
 * sample is unrelated by construction, so the KB's true duplicates (what Disambiguate looks
 * for) cannot raise the threshold. Keep them mutually unrelated and not ambiguous.
 */
export const REFERENCE_NAMES: readonly string[] = [
  'Marie Curie',
  'Kilimanjaro',
  'Toyota Motor Corporation',
  'The Magic Flute',
  'Baltic Sea',
  'Nelson Mandela',
  'Photosynthesis',
  'Reykjavík',
  'World Health Organization',
  'Don Quixote',
  'Amazon River',
  'Ada Lovelace',
  'Sahara',
  'Kyoto Protocol',
  'Leonhard Euler',
  'Great Barrier Reef',
  'Banco Santander',
  'Mona Lisa',
  'Tchaikovsky',
  'Mount Fuji',
  'Frida Kahlo',
  'Suez Canal',
  'Nobel Prize',
  'Tuberculosis',
  'Hagia Sophia',
  'Ernest Hemingway',
  'Danube',
  'Bauhaus',
  'Simón Bolívar',
  'Antarctica',
  'Stradivarius',
  'Ming dynasty',
  'Zürich',
  'Galileo Galilei',
  'Kraków',
  'Volkswagen',
  'Lago di Como',
  'Jeanne d’Arc',
  'Torre Eiffel',
  'Бородино',
  '東京大学',
  'नई दिल्ली',
  'Αριστοτέλης',
  'القاهرة',
  'Chernobyl',
  'Inca Empire',
  'Gutenberg Bible',
  'Serengeti',
];

export const REFERENCE_QUESTIONS: readonly string[] = [
  'When was the Eiffel Tower completed?',
  'Who wrote the novel One Hundred Years of Solitude?',
  'What is the boiling point of water at sea level?',
  'Which river flows through Budapest?',
  'How many moons does Jupiter have?',
  'Who painted the ceiling of the Sistine Chapel?',
  'What currency is used in Switzerland?',
  'In which year did the Berlin Wall fall?',
  'What causes the northern lights?',
  'Who founded the company that makes the iPhone?',
  'What is the capital of Australia?',
  'Which element has the chemical symbol Fe?',
  '¿Quién descubrió la penicilina?',
  '¿Cuál es el río más largo de Sudamérica?',
  'Quelle est la hauteur du mont Blanc ?',
  'Qui a composé la Symphonie fantastique ?',
  'Chi ha scritto la Divina Commedia?',
  'In quale città si trova il Colosseo?',
  'Wer erfand den Buchdruck mit beweglichen Lettern?',
  'Wie viele Einwohner hat Hamburg?',
  'Quem foi o primeiro presidente do Brasil?',
  'Hoeveel provincies heeft Nederland?',
  'Сколько лет длилась Столетняя война?',
  '富士山の高さは何メートルですか？',
  'What language is spoken in Quebec?',
  'Which organ produces insulin?',
  'Who won the first football World Cup?',
  'What is the speed of sound in air?',
  'Where did the Olympic Games originate?',
  'Which planet is known as the Red Planet?',
  'Who was the architect of the Sagrada Família?',
  'What does a seismograph measure?',
];

/**
 * Sub-questions as DaPT's two decompositions write them, for calibrating its fusion threshold τ:
 * per topic, two different questions, each in English and translated into another language. A
 * question and its translation should fuse; two questions about the same topic (the same names,
 * across the languages) should not, since a fused node gets one answer. Keep each topic's two
 * questions different in what they ask, and each translation literal.
 */
export const REFERENCE_FUSION_TOPICS: readonly {
  english: readonly [string, string];
  translated: readonly [string, string];
}[] = [
  {
    english: ['When was the Eiffel Tower completed?', 'Who designed the Eiffel Tower?'],
    translated: ['Quand la tour Eiffel a-t-elle été achevée ?', 'Qui a conçu la tour Eiffel ?'],
  },
  {
    english: ['Who wrote the Divine Comedy?', 'In which city was the author of the Divine Comedy born?'],
    translated: ['Chi ha scritto la Divina Commedia?', "In quale città è nato l'autore della Divina Commedia?"],
  },
  {
    english: ['Which river flows through Budapest?', 'How many bridges does Budapest have?'],
    translated: ['Welcher Fluss fließt durch Budapest?', 'Wie viele Brücken hat Budapest?'],
  },
  {
    english: ['Who discovered penicillin?', 'In which year was penicillin discovered?'],
    translated: ['¿Quién descubrió la penicilina?', '¿En qué año se descubrió la penicilina?'],
  },
  {
    english: ['Who was the first president of Brazil?', 'What is the capital of Brazil?'],
    translated: ['Quem foi o primeiro presidente do Brasil?', 'Qual é a capital do Brasil?'],
  },
  {
    english: ['How long did the Hundred Years War last?', 'Who won the Hundred Years War?'],
    translated: ['Сколько лет длилась Столетняя война?', 'Кто победил в Столетней войне?'],
  },
  // The hardest pairs fusion meets: one relation apart about one person ("the wife of X" and
  // "the father of X" come out of one question's two decompositions), every other word shared.
  {
    english: ['Who was the mother of Napoleon?', 'Who was the son of Napoleon?'],
    translated: ['Chi era la madre di Napoleone?', 'Chi era il figlio di Napoleone?'],
  },
  {
    english: ['Who was the teacher of Alexander the Great?', 'Who was the father of Alexander the Great?'],
    translated: ["Qui était le professeur d'Alexandre le Grand ?", "Qui était le père d'Alexandre le Grand ?"],
  },
];
