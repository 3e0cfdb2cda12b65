/** ANSI styles for a terminal; plain text when the output is not one, or NO_COLOR is set (no-color.org). */
export interface Paint {
  dim(text: string): string;
  bold(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
}

export function createPaint(isEnabled: boolean): Paint {
  const style =
    (open: number, close: number) =>
    (text: string): string =>
      isEnabled ? `\u001b[${String(open)}m${text}\u001b[${String(close)}m` : text;
  return {
    dim: style(2, 22),
    bold: style(1, 22),
    red: style(31, 39),
    green: style(32, 39),
    yellow: style(33, 39),
    cyan: style(36, 39),
  };
}
