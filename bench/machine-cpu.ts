import { readFileSync } from 'node:fs';

/** The machine's CPU time so far, all cores, in clock ticks (the first line of /proc/stat). */
export interface MachineCpu {
  busy: number;
  idle: number;
  /** Time the hypervisor gave this machine's virtual CPUs to someone else. */
  steal: number;
}

/**
 * The fields of a /proc `stat` file, a process's or a thread's, after its command name (which may
 * hold spaces and parentheses itself): [1] is the parent's pid, [11] and [12] utime and stime, [13]
 * and [14] those of its reaped children, in clock ticks (100 a second on Linux). Throws where the
 * file is absent: the process has ended, or this is not Linux.
 */
export function procStatFields(path: string): string[] {
  const stat = readFileSync(path, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** Zeros where /proc/stat is absent (not Linux). */
export function machineCpu(): MachineCpu {
  try {
    const [user, nice, system, idle, iowait, irq, softirq, steal] = readFileSync('/proc/stat', 'utf8')
      .split('\n')[0]!
      .trim()
      .split(/\s+/)
      .slice(1)
      .map(Number);
    return { busy: user! + nice! + system! + irq! + softirq!, idle: idle! + iowait!, steal: steal ?? 0 };
  } catch {
    return { busy: 0, idle: 0, steal: 0 };
  }
}

/**
 * What the machine did between two readings, as percentages of all its cores' time: busy (every
 * process, the benchmark's own included) and stolen by the host. A tail latency measured while the
 * host stole time says more about the host than about borderd.
 */
export function machineCpuBetween(before: MachineCpu, after: MachineCpu): { busyPct: number; stealPct: number } {
  const busy = after.busy - before.busy;
  const steal = after.steal - before.steal;
  const total = busy + steal + (after.idle - before.idle);
  return total > 0 ? { busyPct: (100 * busy) / total, stealPct: (100 * steal) / total } : { busyPct: 0, stealPct: 0 };
}
