/**
 * An OCR'd page read below this mean word confidence is flagged on the Corpus screen and in `polyhop
 * doc`: its text is likely to hold misread words. The loader drops pages below 40 (OcrLoadOptions
 * `minConfidence`); a clean 200 dpi scan reads at 85–95.
 */
export const OCR_LOW_CONFIDENCE = 60;
