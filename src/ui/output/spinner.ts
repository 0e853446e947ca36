/**
 * The spinner of what is running (a tool block's mark, the waiting line): braille dots turning on a terminal
 * with colour; without colour (`NO_COLOR`, `TERM=dumb`) a still `…`, so nothing is redrawn just to animate.
 */

const FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏";
/** How often the spinner turns. */
export const SPIN_MS = 100;
/** The mark shown instead when nothing may animate. */
export const STILL_MARK = "…";

/** The spinner's mark at `frame` (a count that goes up by one every {@link SPIN_MS}); `animated` false: the still mark. */
export function spinnerMark(frame: number, animated: boolean): string {
  return animated ? FRAMES[frame % FRAMES.length]! : STILL_MARK;
}
