/**
 * CSV (RFC 4180) for spreadsheets. Text that a spreadsheet would run as a formula (a cell starting
 * with `=`, `+`, `-`, `@`, a tab or a carriage return: OWASP "CSV injection") is prefixed with a
 * single quote, so a reason or a name written by someone else is shown, never evaluated.
 */
export function csvCell(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '';
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) || text !== text.trim() ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvRow(values: ReadonlyArray<string | number | null | undefined>): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}
