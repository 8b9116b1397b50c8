import type { InputHTMLAttributes, ReactNode } from 'react';

export type TextFieldProps = Omit<InputHTMLAttributes<HTMLInputElement>, 'onChange' | 'value'> & {
  label: ReactNode;
  value: string;
  /** Called with the input's new text. */
  onValue: (value: string) => void;
};

/**
 * The labelled text row the forms repeat (`<label><span>…</span><input/></label>`); every other
 * prop, `data-testid` included, goes to the `<input>`. Example:
 * `<TextField label={t('x')} value={x} onValue={setX} spellCheck={false} data-testid="x" />`.
 */
export function TextField({ label, onValue, ...input }: TextFieldProps) {
  return (
    <label>
      <span>{label}</span>
      <input {...input} onChange={(e) => onValue(e.target.value)} />
    </label>
  );
}
