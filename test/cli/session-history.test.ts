/** A resumed session is redrawn from what was saved: text, thinking, and each tool block from its snapshot and summary. */
import { describe, expect, it } from "vitest";
import { LineSink } from "../../src/cli/output/sink.js";
import { showHistory } from "../../src/cli/session-history.js";
import { NEW, tempStore } from "../session/fixtures.js";

describe("showHistory", () => {
  it("replays the saved turn through the terminal renderer without running anything", () => {
    const store = tempStore();
    const w = store.create(NEW);
    if (!w.ok) throw new Error(w.error.message);
    w.value.appendMessage({ role: "user", content: [{ type: "text", text: "count to 3" }] });
    w.value.appendMessage({
      role: "assistant",
      content: [
        { type: "thinking", thinking: "Use the tool." },
        { type: "text", text: "Counting." },
        { type: "tool_use", id: "c1", name: "count", input: '{"n":3}' },
        { type: "tool_use", id: "c2", name: "count", input: '{"n":-1}' },
      ],
    });
    w.value.appendToolEvent("c1", { snapshot: { counted: 3 }, summary: "counted 3" });
    w.value.appendMessage({
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "c1", content: "counted to 3" },
        { type: "tool_result", tool_use_id: "c2", content: "n must be positive", is_error: true },
      ],
    });
    w.value.appendMessage({ role: "assistant", content: [{ type: "text", text: "Done." }] });
    w.value.close();
    const loaded = store.load(w.value.id);
    if (!loaded.ok) throw new Error(loaded.error.message);
    let out = "";
    showHistory(loaded.value, new LineSink({ write: (t: string) => (out += t) }, false));
    expect(out).toBe(
      [
        `resumed session ${w.value.id} (${NEW.cwd}, 4 messages)`,
        "> count to 3",
        "(thinking) Use the tool.",
        "Counting.",
        '⚙ count {"n":3}',
        "  ✓ count: counted 3",
        '⚙ count {"n":-1}',
        "  ✗ count: n must be positive",
        "Done.",
        "─── continue below ───",
        "",
      ].join("\n"),
    );
  });
});
