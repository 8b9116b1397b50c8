/** ISO 639-3 codes some datasets use, for the languages that have a 639-1 code. */
const TWO_LETTER: Record<string, string> = {
  eng: 'en',
  ita: 'it',
  fra: 'fr',
  fre: 'fr',
  spa: 'es',
  deu: 'de',
  ger: 'de',
  por: 'pt',
  nld: 'nl',
  zho: 'zh',
  chi: 'zh',
  jpn: 'ja',
  tha: 'th',
  swa: 'sw',
  hau: 'ha',
  ibo: 'ig',
  kin: 'rw',
  yor: 'yo',
  zul: 'zu',
  twi: 'tw',
  wol: 'wo',
  ara: 'ar',
  rus: 'ru',
  hin: 'hi',
  tur: 'tr',
  vie: 'vi',
};

/** Lower-cases a language tag and maps a 639-3 code to 639-1 where one exists (`swa` → `sw`); `pt-BR` → `pt`. */
export function toLanguageCode(tag: string): string {
  const primary = tag.trim().toLowerCase().split(/[-_]/)[0] ?? '';
  return TWO_LETTER[primary] ?? primary;
}

/** The language a file name states, e.g. `xquad.de.json` → `de`, `SQuAD_it-test.json` → `it`. */
export function languageFromFileName(name: string): string | undefined {
  const m = /(?:^|[._-])([a-z]{2})(?=[._-])/i.exec(name);
  return m ? (m[1] as string).toLowerCase() : undefined;
}
