/**
 * The key two entity names must share to be the same entity: NFKC, case-folded, whitespace trimmed
 * and collapsed. Case folding goes through upper case so that 'Straße' and 'STRASSE', or final and
 * medial sigma, meet (String#toLowerCase alone does not fold them).
 *
 * entityKey('  Ｐenelope\u00a0OF Ithaca ') === 'penelope of ithaca'
 */
export function entityKey(name: string): string {
  return name.normalize('NFKC').toUpperCase().toLowerCase().normalize('NFKC').replace(/\s+/gu, ' ').trim();
}

/** A display name: NFC, whitespace trimmed and collapsed (case kept). */
export function cleanName(name: string): string {
  return name.normalize('NFC').replace(/\s+/gu, ' ').trim();
}
