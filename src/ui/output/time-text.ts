/** Times for people: a session's last update as local time, or as how long ago. */

const pad = (n: number): string => String(n).padStart(2, "0");

/** `2025-03-14 16:30` in the local time zone. */
export function localTime(iso: string): string {
  const d = new Date(iso);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** `just now`, `5 min ago`, `3 h ago`, `yesterday 14:02`, else the local date and time. */
export function timeAgo(iso: string, now = new Date()): string {
  const then = new Date(iso);
  const minutes = Math.floor((now.getTime() - then.getTime()) / 60_000);
  if (minutes < 1) return "just now";
  if (minutes < 60) return `${minutes} min ago`;
  if (minutes < 12 * 60) return `${Math.floor(minutes / 60)} h ago`;
  const yesterday = new Date(now);
  yesterday.setDate(now.getDate() - 1);
  if (then.toDateString() === now.toDateString()) return `today ${pad(then.getHours())}:${pad(then.getMinutes())}`;
  if (then.toDateString() === yesterday.toDateString()) return `yesterday ${pad(then.getHours())}:${pad(then.getMinutes())}`;
  return localTime(iso);
}
