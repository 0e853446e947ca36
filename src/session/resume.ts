/** The result a tool call left unanswered gets when its session is resumed (SPEC §5; see SessionStore.open). */
export const SESSION_ENDED_RESULT =
  "The session ended before this tool ran or finished (awl was stopped mid-turn), so its result is unknown. Nothing was re-run on resume.";
