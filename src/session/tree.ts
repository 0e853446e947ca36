/**
 * A session as a tree (docs/sessions.md, format version 2): every message names its parent, so a rewind or an edited
 * prompt starts a branch beside the old one and nothing is deleted. This module finds branches in a loaded tree.
 */
import type { Message } from "../model/message.js";

/** One saved message and where it hangs. */
export interface TreeNode {
  id: string;
  /** null: the first message of a branch from the start. */
  parent: string | null;
  message: Message;
  /** The file line it was read from. */
  line: number;
  /** When it was saved (ISO 8601). */
  time: string;
}

/** The messages from the start to `leaf`, in order (every parent is a message read before its child, so the walk ends). */
export function branchTo(nodes: ReadonlyMap<string, TreeNode>, leaf: string | null): TreeNode[] {
  const path: TreeNode[] = [];
  for (let node = leaf === null ? undefined : nodes.get(leaf); node; node = node.parent === null ? undefined : nodes.get(node.parent)) path.push(node);
  return path.reverse();
}

/** The messages no other message follows: the ends of the branches, in file order. */
export function leavesOf(nodes: ReadonlyMap<string, TreeNode>): TreeNode[] {
  const parents = new Set<string>();
  for (const node of nodes.values()) if (node.parent !== null) parents.add(node.parent);
  return [...nodes.values()].filter((n) => !parents.has(n.id));
}
