/**
 * Function words of the languages the app ships prompts for. BM25 gives them almost no weight,
 * yet FTS5 must score every row that holds one: measured on 80k verbalised triples, "Who was the
 * spouse of the ruler of X" took 30 ms against 0.3 ms without them, and the cost grows with the KB.
 */
const STOPWORDS = new Set(
  [
    // en
    'a an the of to in on at by for from with and or but is are was were be been being am do does did has have had',
    'who whom whose what which when where why how that this these those it its he she his her they their them as into than then there here not no',
    // it
    'il lo la i gli le un uno una di del dello della dei degli delle da dal dalla dai in nel nella',
    'con su per tra fra e ed o ma che chi cui non è era erano sono fu quale quali quando dove come perché',
    // fr
    'le la les un une des du de d l à au aux en dans par pour sur avec et ou mais qui que quoi',
    'dont où est était étaient sont fut ce cette ces il elle ils elles son sa ses leur quel quelle quels quelles comment pourquoi quand',
    // es
    'el la los las un una unos unas de del al a en con por para y o pero que quién quien quiénes cuál cual cuándo dónde cómo es era eran son fue su sus se lo',
    // de
    'der die das den dem des ein eine einen einem eines und oder aber von zu im in am',
    'an auf mit für ist war waren sind wer wen wem wessen was wann wo wie warum welche welcher welches',
    // pt
    'o os as um uma uns umas do da dos das no na nos nas em por para com e ou mas que quem qual quais quando onde como foi era eram são seu sua',
  ].flatMap((line) => line.split(' ')),
);

/**
 * The query BM25 should see: words without function words (apostrophes split, so "l'épouse"
 * keeps "épouse"). When nothing content-bearing is left the text is kept as it was.
 */
export function bm25Query(text: string): string {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const content = words.filter((w) => !STOPWORDS.has(w));
  return content.length > 0 ? content.join(' ') : text;
}
