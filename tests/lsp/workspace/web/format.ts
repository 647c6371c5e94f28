// Formatting helpers for the web views.
export function formatPrice(cents: number): string {
  const whole = Math.floor(cents / 100);
  const part = cents % 100;
  const padded = part < 10 ? "0" + part : String(part);
  const sign = cents < 0 ? "-" : "";
  const text = sign + whole + "." + padded;
  return text;
}

export function formatCount(count: number, noun: string): string {
  const plural = count === 1 ? noun : noun + "s";
  const shown = count > 999 ? "999+" : String(count);
  const parts = [shown, plural];
  const joined = parts.join(" ");
  const trimmed = joined.trim();
  return trimmed;
}
