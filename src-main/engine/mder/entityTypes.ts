import { foldName } from './names.js';

/**
 * Coarse classes of the free-text types Map writes ("Person", "Greek Hero", "City", "Island",
 * "Poem"). Two entities whose types fall in different classes are never one thing, whatever a
 * small model says about their names; a type in no class (or "Thing", "Named Entity") says nothing
 * and is compatible with every type. Organisations and places share a class: "Ithaca" the kingdom
 * and "Ithaca" the island, "Sparta" the city-state, are one entity in most texts.
 */
const CLASSES: Record<string, readonly string[]> = {
  agent: [
    'person', 'people', 'human', 'man', 'woman', 'child', 'king', 'queen', 'prince', 'princess', 'emperor', 'ruler', 'hero',
    'heroine', 'character', 'figure', 'god', 'goddess', 'deity', 'nymph', 'titan', 'monster', 'giant', 'author', 'writer',
    'poet', 'artist', 'painter', 'composer', 'musician', 'singer', 'actor', 'actress', 'director', 'politician', 'scientist',
    'player', 'athlete', 'soldier', 'warrior', 'general', 'leader', 'saint', 'pope', 'bishop', 'priest', 'noble', 'nobleman',
    'noblewoman', 'lord', 'lady', 'duke', 'count', 'countess', 'baron', 'knight', 'suitor', 'servant', 'son', 'daughter',
    'father', 'mother', 'wife', 'husband', 'brother', 'sister', 'individual', 'philosopher', 'inventor', 'engineer',
  ],
  place: [
    'place', 'location', 'city', 'town', 'village', 'country', 'nation', 'state', 'kingdom', 'empire', 'region', 'province',
    'island', 'continent', 'mountain', 'river', 'lake', 'sea', 'ocean', 'bay', 'harbour', 'harbor', 'port', 'county',
    'district', 'territory', 'capital', 'municipality', 'commune', 'valley', 'forest', 'desert', 'building', 'palace',
    'castle', 'church', 'temple', 'cathedral', 'street', 'square', 'site', 'area', 'landmark', 'organization',
    'organisation', 'company', 'university', 'school', 'college', 'institution', 'government', 'party', 'band', 'team',
    'club', 'army', 'agency', 'association', 'corporation', 'firm', 'publisher', 'label', 'dynasty', 'family', 'house',
  ],
  work: [
    'work', 'book', 'novel', 'poem', 'epic', 'play', 'film', 'movie', 'song', 'album', 'painting', 'opera', 'symphony',
    'series', 'show', 'episode', 'article', 'story', 'myth', 'text', 'manuscript', 'magazine', 'newspaper', 'journal',
    'game', 'software', 'single', 'composition', 'sculpture', 'artwork', 'treaty', 'law',
  ],
  time: ['date', 'year', 'month', 'day', 'century', 'decade', 'period', 'era', 'age', 'time', 'duration', 'season'],
  quantity: ['number', 'quantity', 'amount', 'measure', 'measurement', 'percentage', 'price', 'value', 'population', 'distance'],
  event: ['event', 'war', 'battle', 'siege', 'election', 'festival', 'competition', 'tournament', 'ceremony', 'voyage', 'journey', 'revolution'],
};

const CLASS_OF_WORD = new Map(Object.entries(CLASSES).flatMap(([cls, words]) => words.map((w) => [w, cls] as const)));

/**
 * The coarse class of a type: that of its last word with a class ("Greek Hero" → agent, "Port
 * City" → place), else of any word; null when none has one.
 */
export function typeClass(type: string): string | null {
  const words = foldName(type).split(' ').filter(Boolean);
  for (const w of [...words].reverse()) {
    const cls = CLASS_OF_WORD.get(w) ?? CLASS_OF_WORD.get(w.replace(/s$/, ''));
    if (cls) return cls;
  }
  return null;
}

/** Whether two types may describe one thing: same class, or one of them in no class. */
export function compatibleTypes(a: string, b: string): boolean {
  const ca = typeClass(a);
  const cb = typeClass(b);
  return ca === null || cb === null || ca === cb;
}
