import type { ReactNode } from 'react';

/** A scrolling box around a wide or long table; focusable so keyboard users can scroll it. */
export function TableScroll({ children }: { children: ReactNode }) {
  return (
    <div className="table-scroll" tabIndex={0}>
      {children}
    </div>
  );
}
