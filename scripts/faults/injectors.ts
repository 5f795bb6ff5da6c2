import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from '../../lib/paths';
import type { Fault } from './fault-schedule';
import type { Role, RoleName } from './roles';

const run = promisify(execFile);

/**
 * How the fault suite strikes each fault (docs/reliability.md). Each injector acts, then waits until
 * the part it struck is back (a role's new process ready, a stack part answering again, the disk
 * freed): `backAt`. Whether the service is whole again is the suite's measure, not the injector's.
 */

export interface FaultContext {
  roles: Record<RoleName, Role>;
  /** The agent processes started so far: pid per record, from the tagged agent command's file. */
  agentStarts(): Array<{ at: number; executionId: string; pid: number }>;
  /** The ranking job's status (GET /api/v1/ranking/status), or null when the API does not answer. */
  rankingStatus(): Promise<{ em_execucao: boolean; fase: string | null; processados: number; total: number } | null>;
  /** The share of the ranking job's persons scored when the ranking worker is killed (drawn from the seed). */
  rankingShare: number;
  /** The data area's mount (a small tmpfs of its own) and how long the disk stays full. */
  dataMount: string;
  diskFullMs: number;
  log(line: string): void;
}

export interface Strike {
  fault: Fault;
  /** What was hit: a pid, a part, a record. */
  target: string;
  struckAt: number;
  backAt: number;
}

export async function strike(fault: Fault, context: FaultContext): Promise<Strike> {
  switch (fault) {
    case 'agents-worker-kill':
      return killRole(fault, context.roles['agents-a'], context);
    case 'second-host-kill':
      return killRole(fault, context.roles['agents-b'], context);
    case 'api-kill':
      return killRole(fault, context.roles.api, context);
    case 'ranking-worker-kill':
      await duringABatch(context);
      return killRole(fault, context.roles.ranking, context);
    case 'temporal-restart':
      return restartPart(fault, 'temporal', context);
    case 'mariadb-restart':
      return restartPart(fault, 'mariadb', context);
    case 'redis-restart':
      return restartPart(fault, 'redis', context);
    case 'cli-kill':
      return killAnAgent(context);
    case 'disk-full':
      return fillTheDisk(context);
  }
}

async function killRole(fault: Fault, role: Role, context: FaultContext): Promise<Strike> {
  const pid = role.pid();
  const struckAt = Date.now();
  await role.kill();
  context.log(`${fault}: killed ${role.spec.name} (pid ${pid}) with SIGKILL`);
  await role.ready(180_000);
  return { fault, target: `${role.spec.name} pid ${pid}`, struckAt, backAt: Date.now() };
}

async function restartPart(fault: Fault, part: 'temporal' | 'mariadb' | 'redis', context: FaultContext): Promise<Strike> {
  const struckAt = Date.now();
  const { stdout } = await run('bash', [path.join(repoRoot, 'scripts/stack/restart.sh'), part], {
    cwd: repoRoot,
    env: process.env,
    timeout: 180_000,
  });
  context.log(`${fault}: ${stdout.trim().split('\n').at(-1)}`);
  return { fault, target: part, struckAt, backAt: Date.now() };
}

/** The ranking worker is killed while batches are in flight: the job has scored at least its share, not all. */
async function duringABatch(context: FaultContext): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const status = await context.rankingStatus();
    if (
      status?.em_execucao &&
      status.fase === 'pontuando' &&
      status.processados >= context.rankingShare * status.total &&
      status.processados > 0 &&
      status.processados < status.total
    )
      return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('ranking-worker-kill: no ranking batch in flight within 120 s (the phase starts a job first)');
}

/** `kill -9` of a running agent CLI from outside (as the OOM killer or an operator would). */
async function killAnAgent(context: FaultContext): Promise<Strike> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const alive = context.agentStarts().filter((start) => isAlive(start.pid));
    const victim = alive.at(-1);
    if (victim) {
      const struckAt = Date.now();
      process.kill(victim.pid, 'SIGKILL');
      context.log(`cli-kill: killed the agent of ${victim.executionId} (pid ${victim.pid}) with SIGKILL`);
      return { fault: 'cli-kill', target: `execution ${victim.executionId}`, struckAt, backAt: struckAt };
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('cli-kill: no agent process running within 120 s');
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The data area's filesystem full for `diskFullMs`: one file takes every free block, then goes. */
async function fillTheDisk(context: FaultContext): Promise<Strike> {
  const filler = path.join(context.dataMount, '.faults-disk-full');
  const struckAt = Date.now();
  fillUp(filler);
  const left = fs.statfsSync(context.dataMount).bavail;
  context.log(`disk-full: ${context.dataMount} full (${left} blocks free) for ${context.diskFullMs} ms`);
  await new Promise((resolve) => setTimeout(resolve, context.diskFullMs));
  fs.rmSync(filler, { force: true });
  return { fault: 'disk-full', target: context.dataMount, struckAt, backAt: Date.now() };
}

/** Writes `file` until its filesystem refuses (ENOSPC): 1 MiB at a time, then 4 KiB, so nothing is left free. */
function fillUp(file: string): void {
  const descriptor = fs.openSync(file, 'w');
  try {
    for (const size of [1024 * 1024, 4096, 512]) {
      const block = Buffer.alloc(size);
      try {
        for (;;) fs.writeSync(descriptor, block);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
      }
    }
  } finally {
    fs.closeSync(descriptor);
  }
}
