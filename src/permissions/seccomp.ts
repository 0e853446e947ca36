/**
 * The exec sandbox's seccomp filter (docs/permissions.md, "Sandbox"): a classic-BPF program bubblewrap installs
 * (`bwrap --seccomp FD`) that makes `socket(AF_UNIX, …)` fail with EPERM, so a sandboxed command cannot drive a
 * daemon through its Unix socket (docker, D-Bus, an SSH agent) even though the socket's file is visible. Everything
 * else is allowed. Only x86_64 and aarch64 system calls pass the architecture check: a 32-bit or x32 call (which
 * would name `socket` by another number, or through `socketcall`) ends the process, as Claude Code's and codex's
 * Linux sandboxes do.
 */

/** `struct seccomp_data` offsets: the system call number, the architecture, the low half of the first argument. */
const NR = 0;
const ARCH = 4;
const ARG0_LOW = 16;

const AUDIT_ARCH_X86_64 = 0xc000003e;
const AUDIT_ARCH_AARCH64 = 0xc00000b7;
/** x32 system calls carry this bit in their number on x86_64. */
const X32_SYSCALL_BIT = 0x40000000;
const SOCKET_X86_64 = 41;
const SOCKET_AARCH64 = 198;
const AF_UNIX = 1;
const EPERM = 1;

const RET_ALLOW = 0x7fff0000;
const RET_ERRNO = 0x00050000;
const RET_KILL_PROCESS = 0x80000000;

/** BPF opcodes: load a word at an absolute offset, jump if equal / greater or equal to a constant, return a constant. */
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const RET_K = 0x06;

interface Instruction {
  code: number;
  k: number;
  /** Labels to jump to when true and false; absent: the next instruction. */
  yes?: string;
  no?: string;
  label?: string;
}

const program: readonly Instruction[] = [
  { code: LD_W_ABS, k: ARCH },
  { code: JEQ_K, k: AUDIT_ARCH_X86_64, no: "arm" },
  { code: LD_W_ABS, k: NR },
  { code: JGE_K, k: X32_SYSCALL_BIT, yes: "kill" },
  { code: JEQ_K, k: SOCKET_X86_64, yes: "socket", no: "allow" },
  { label: "arm", code: JEQ_K, k: AUDIT_ARCH_AARCH64, no: "kill" },
  { code: LD_W_ABS, k: NR },
  { code: JEQ_K, k: SOCKET_AARCH64, yes: "socket", no: "allow" },
  { label: "socket", code: LD_W_ABS, k: ARG0_LOW },
  { code: JEQ_K, k: AF_UNIX, yes: "deny", no: "allow" },
  { label: "allow", code: RET_K, k: RET_ALLOW },
  { label: "deny", code: RET_K, k: RET_ERRNO | EPERM },
  { label: "kill", code: RET_K, k: RET_KILL_PROCESS },
];

/** The filter as the kernel takes it: `struct sock_filter` entries (u16 code, u8 jt, u8 jf, u32 k), little-endian. */
export function unixSocketFilter(): Buffer {
  const at = new Map(program.flatMap((ins, i) => (ins.label ? [[ins.label, i] as const] : [])));
  const offset = (from: number, label: string | undefined): number => (label === undefined ? 0 : at.get(label)! - from - 1);
  const out = Buffer.alloc(program.length * 8);
  program.forEach((ins, i) => {
    out.writeUInt16LE(ins.code, i * 8);
    out.writeUInt8(offset(i, ins.yes), i * 8 + 2);
    out.writeUInt8(offset(i, ins.no), i * 8 + 3);
    out.writeUInt32LE(ins.k, i * 8 + 4);
  });
  return out;
}
